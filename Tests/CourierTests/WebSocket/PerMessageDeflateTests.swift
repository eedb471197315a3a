import Foundation
import Testing
@testable import Courier

@Suite("PerMessageDeflate")
struct PerMessageDeflateTests {
    @Test("what the server may answer, and what it may not")
    func negotiation() throws {
        #expect(try PerMessageDeflate.negotiate("permessage-deflate").get() == .init())
        let all = try PerMessageDeflate.negotiate("permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10").get()
        #expect(all == .init(serverNoContextTakeover: true, clientNoContextTakeover: true, serverMaxWindowBits: 10))
        for refused in ["x-webkit-deflate-frame", "permessage-deflate, permessage-deflate", "permessage-deflate; client_max_window_bits=10",
                        "permessage-deflate; server_max_window_bits=16", "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
                        "permessage-deflate; unknown"] {
            guard case .failure = PerMessageDeflate.negotiate(refused) else { Issue.record("accepted \(refused)"); continue }
        }
    }

    @Test("messages round-trip through two streams, with and without context takeover", arguments: [false, true])
    func roundTrip(noContextTakeover: Bool) throws {
        let parameters = PerMessageDeflate.Parameters(serverNoContextTakeover: noContextTakeover, clientNoContextTakeover: noContextTakeover)
        // One side's deflater feeds the other side's inflater (both use the same parameters).
        let sender = try #require(PerMessageDeflate(parameters))
        let receiver = try #require(PerMessageDeflate(parameters))
        for message in ["", "hello", String(repeating: "hello world ", count: 10_000), "hello"] {
            let compressed = try #require(sender.compress(Data(message.utf8)))
            var output = Data()
            // Split in two frames, as a fragmented message.
            let cut = compressed.count / 2
            try receiver.decompress(compressed.prefix(cut), last: false, into: &output, limit: 1 << 20)
            try receiver.decompress(compressed.dropFirst(cut), last: true, into: &output, limit: 1 << 20)
            #expect(String(decoding: output, as: UTF8.self) == message)
        }
    }

    @Test("a small frame that inflates past the limit is stopped with 1009; garbage with 1007")
    func limits() throws {
        let sender = try #require(PerMessageDeflate(.init()))
        let bomb = try #require(sender.compress(Data(count: 10 << 20)))
        #expect(bomb.count < 64 * 1024)
        let receiver = try #require(PerMessageDeflate(.init()))
        var output = Data()
        #expect(throws: WebSocketProtocolError.self) { try receiver.decompress(bomb, last: true, into: &output, limit: 1 << 20) }
        #expect(output.count <= 1 << 20)
        do {
            var ignored = Data()
            try PerMessageDeflate(.init())!.decompress(Data([0xFF, 0xFF, 0xFF, 0xFF]), last: true, into: &ignored, limit: 1 << 20)
            Issue.record("garbage inflated")
        } catch {
            #expect(error.code == .invalidFramePayloadData)
        }
    }
}
