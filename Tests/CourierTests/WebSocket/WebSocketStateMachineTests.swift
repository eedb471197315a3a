import Foundation
import Testing
@testable import Courier

@Suite("WebSocketStateMachine")
struct WebSocketStateMachineTests {
    private typealias Frames = WebSocketFrameParserTests

    private func machine() -> WebSocketStateMachine {
        WebSocketStateMachine(maxFrameSize: 1 << 20, maxMessageSize: 100)
    }

    @Test("fragments join into one message, a ping between them answered at once")
    func fragments() {
        var machine = machine()
        let text = Array("héllo €".utf8)
        let actions = machine.receive(Data(Frames.frame(0x1, Array(text[0..<2]), fin: false) + Frames.frame(0x9, [7])
            + Frames.frame(0x0, Array(text[2..<8]), fin: false) + Frames.frame(0x0, Array(text[8...]))))
        #expect(actions == [.write(WebSocketFrame(opcode: .pong, payload: Data([7]))), .deliver(.text("héllo €"))])
    }

    @Test("invalid text fails with 1007 at the fragment that breaks it")
    func invalidText() {
        var machine = machine()
        let actions = machine.receive(Data(Frames.frame(0x1, [0x61], fin: false) + Frames.frame(0x0, [0xFF], fin: false)))
        guard case .write(let close)? = actions.first else { Issue.record("no close written: \(actions)"); return }
        #expect(close.opcode == .close)
        #expect([UInt8](close.payload.prefix(2)) == [0x03, 0xEF])   // 1007
        #expect(machine.state == .closed)
    }

    @Test("a message over the limit fails with 1009, across fragments too")
    func tooBig() {
        var machine = machine()
        let actions = machine.receive(Data(Frames.frame(0x2, [UInt8](repeating: 0, count: 60), fin: false)
            + Frames.frame(0x0, [UInt8](repeating: 0, count: 60))))
        #expect(actions.contains { if case .failed(let error) = $0 { error.code == .messageTooBig } else { false } })
    }

    @Test("protocol errors: continuation first, a new message inside one, bad close frames")
    func protocolErrors() {
        for bytes in [Frames.frame(0x0, [1]), Frames.frame(0x1, [0x61], fin: false) + Frames.frame(0x1, [0x62]),
                      Frames.frame(0x8, [0x03]), Frames.frame(0x8, [0x03, 0xED]), Frames.frame(0x8, [0x03, 0xE8, 0xFF])] {
            var machine = machine()
            let actions = machine.receive(Data(bytes))
            let failure = actions.compactMap { if case .failed(let error) = $0 { error } else { nil } }.first
            #expect(failure != nil, "\(bytes)")
        }
    }

    @Test("the peer's close is echoed with its code; ours waits for the peer's")
    func closing() {
        var machine = machine()
        let actions = machine.receive(Data(Frames.frame(0x8, [0x0F, 0xA1] + Array("bye".utf8))))
        #expect(actions == [.write(WebSocketFrame(opcode: .close, payload: Data([0x0F, 0xA1]))), .closed(code: WebSocketCloseCode(rawValue: 4001), reason: "bye")])
        #expect(machine.close(code: .normalClosure, reason: "") == nil)

        var ours = self.machine()
        let frame = ours.close(code: .goingAway, reason: String(repeating: "é", count: 100))
        #expect(frame?.payload.count ?? 0 <= 125)
        #expect(!ours.canSend)
        // Messages still arrive until the peer's close, which is not answered again.
        #expect(ours.receive(Data(Frames.frame(0x1, [0x61]))) == [.deliver(.text("a"))])
        #expect(ours.receive(Data(Frames.frame(0x8, [0x03, 0xE9]))) == [.closed(code: .goingAway, reason: "")])
    }

    @Test("frames read where they land or across reads, split at every byte, arrive whole and in order")
    func splitReads() {
        let payload = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let stream = Frames.frame(0x2, [1, 2, 3]) + Frames.frame(0x2, payload) + Frames.frame(0x9, [9]) + Frames.frame(0x2, [])
        let expected: [WebSocketStateMachine.Action] = [
            .deliver(.binary(Data([1, 2, 3]))), .deliver(.binary(Data(payload))),
            .write(WebSocketFrame(opcode: .pong, payload: Data([9]))), .deliver(.binary(Data())),
        ]
        for split in 0...stream.count {
            var machine = WebSocketStateMachine(maxFrameSize: 1 << 20, maxMessageSize: 1 << 20)
            let actions = machine.receive(Data(stream[..<split])) + machine.receive(Data(stream[split...]))
            #expect(actions == expected, "split at \(split)")
        }
    }
}
