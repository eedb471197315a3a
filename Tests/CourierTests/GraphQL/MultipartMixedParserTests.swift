import Foundation
import Testing

@testable import Courier

/// Splitting a multipart subscription's body into parts, however it is chunked.
@Suite struct MultipartMixedParserTests {
    private static let apollo = "\r\n--graphql\r\ncontent-type: application/json\r\n\r\n{}\r\n--graphql\r\ncontent-type: application/json\r\n\r\n{\"payload\":{\"data\":{\"n\":1}}}\r\n--graphql\r\ncontent-type: application/json\r\n\r\n{\"payload\":{\"data\":{\"n\":2}}}\r\n--graphql--\r\n"

    @Test("Apollo's framing, fed whole and split at every byte: the same parts, then finished")
    func everySplit() throws {
        let bytes = Data(Self.apollo.utf8)
        let expected = ["{}", #"{"payload":{"data":{"n":1}}}"#, #"{"payload":{"data":{"n":2}}}"#]
        for split in 0...bytes.count {
            var parser = MultipartMixedParser(boundary: "graphql")
            let parts = try parser.feed(bytes.prefix(split)) + parser.feed(bytes.dropFirst(split))
            #expect(parts.map { String(decoding: $0, as: UTF8.self) } == expected, "split at \(split)")
            #expect(parser.isFinished)
        }
    }

    @Test("a first part without a delimiter before it (Strawberry) is a part; a part past the limit throws")
    func preambleAndLimit() throws {
        var parser = MultipartMixedParser(boundary: "graphql")
        let parts = try parser.feed(Data("\r\nContent-Type: application/json\r\n\r\n{}\r\n--graphql\r\n\r\n{\"payload\":null}\r\n--graphql--".utf8))
        #expect(parts.map { String(decoding: $0, as: UTF8.self) } == ["{}", #"{"payload":null}"#])
        var small = MultipartMixedParser(boundary: "-", maxPartBytes: 100)
        #expect(throws: MultipartMixedParser.PartTooLarge.self) { _ = try small.feed(Data(repeating: UInt8(ascii: "x"), count: 200)) }
    }

    @Test("30,000 heartbeats in one chunk, then in 7-byte pieces: every part, in order")
    func manySmallParts() throws {
        let part = "\r\n--graphql\r\ncontent-type: application/json\r\n\r\n{}"
        let bytes = Data((String(repeating: part, count: 30_000) + "\r\n--graphql--\r\n").utf8)
        var whole = MultipartMixedParser(boundary: "graphql")
        #expect(try whole.feed(bytes).count == 30_000)
        var pieces = MultipartMixedParser(boundary: "graphql")
        var count = 0
        for offset in stride(from: 0, to: bytes.count, by: 7) {
            count += try pieces.feed(bytes[offset..<min(offset + 7, bytes.count)]).count
        }
        #expect(count == 30_000 && pieces.isFinished)
    }

    @Test("the boundary from Content-Type, quoted or not, with Apollo's trailing parameters; '-' by default")
    func boundary() {
        #expect(MultipartMixedParser.boundary(inContentType: #"multipart/mixed; boundary="graphql"; subscriptionSpec=1.0"#) == "graphql")
        #expect(MultipartMixedParser.boundary(inContentType: "multipart/mixed;boundary=graphql;subscriptionSpec=1.0,application/json") == "graphql")
        #expect(MultipartMixedParser.boundary(inContentType: "multipart/mixed") == "-")
    }
}
