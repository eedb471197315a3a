import Foundation
import Testing

@testable import Courier

@Suite struct HTTPResponseTextTests {
    private func response(_ bytes: [UInt8], contentType: String?) -> HTTPResponse {
        HTTPResponse(status: 200, headers: contentType.map { ["Content-Type": $0] } ?? [:], body: Data(bytes))
    }

    @Test("the charset of Content-Type, in any case, quoted or not; UTF-8 when there is none")
    func theCharsetOfContentType() throws {
        let latin1: [UInt8] = [0x63, 0x61, 0x66, 0xE9]   // "café" in ISO-8859-1
        #expect(try response(latin1, contentType: "text/plain; charset=iso-8859-1").text() == "café")
        #expect(try response(latin1, contentType: "text/plain;charset=\"ISO-8859-1\"").text() == "café")
        #expect(try response(latin1, contentType: "text/html; Charset=latin1; format=flowed").text() == "café")
        #expect(try response([0x80], contentType: "text/plain; charset=windows-1252").text() == "€")
        #expect(try response([0xFF, 0xFE, 0x41, 0x00], contentType: "text/plain; charset=utf-16").text() == "A")
        let utf8 = Array("café ✓".utf8)
        #expect(try response(utf8, contentType: "text/plain").text() == "café ✓")
        #expect(try response(utf8, contentType: nil).text() == "café ✓")
        #expect(try response([0xEF, 0xBB, 0xBF] + utf8, contentType: "text/plain; charset=utf-8").text() == "café ✓")
        #expect(try response([], contentType: nil).text() == "")
    }

    @Test("bytes that are not text in the charset, or a charset not known, are a decoding error")
    func undecodable() {
        for (bytes, type, charset, known) in [
            ([0x63, 0xE9] as [UInt8], "text/plain", "utf-8", true),
            ([0x63], "text/plain; charset=x-unknown", "x-unknown", false),
        ] {
            let error = #expect(throws: NetworkError.self) { try response(bytes, contentType: type).text() }
            guard case .decodingError(let cause as HTTPResponse.UndecodableText, let prefix)? = error else {
                Issue.record("got \(String(describing: error))")
                continue
            }
            #expect(cause.charset == charset)
            #expect(cause.isKnownCharset == known)
            #expect(prefix.hasPrefix("c"))
        }
    }
}
