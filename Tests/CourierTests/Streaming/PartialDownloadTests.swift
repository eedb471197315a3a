import Foundation
import Testing

@testable import Courier

/// What a resumed download reads from a 206.
@Suite struct PartialDownloadTests {
    @Test("Content-Range: a 206's range and size, or nil for what is not one")
    func contentRange() {
        func parse(_ value: String?) -> [Int?]? {
            var response = HTTPResponse(status: 206)
            response.headers["Content-Range"] = value
            return PartialDownload.contentRange(of: response).map { [$0.start, $0.end, $0.complete] }
        }
        #expect(parse("bytes 100-199/200") == [100, 199, 200])
        #expect(parse("bytes 0-0/*") == [0, 0, nil])
        for bad in [nil, "", "bytes */200", "bytes 5-4/10", "bytes 0-9/9", "items 0-9/10", "bytes -1-9/10", "bytes 0-9"] {
            #expect(parse(bad) == nil, "\(bad ?? "nil")")
        }
    }
}
