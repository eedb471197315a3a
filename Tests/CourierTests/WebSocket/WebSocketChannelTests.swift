import CourierTesting
import Foundation
import Testing
@testable import Courier

/// The channel between the tasks and the I/O thread, driven here by hand as the event loop
/// drives it: what it asks to read, what it gives to write.
@Suite("WebSocketChannel")
struct WebSocketChannelTests {
    private typealias Frames = WebSocketFrameParserTests

    private func channel(_ configure: (inout WebSocketOptions) -> Void = { _ in }, wakes: Locked<Int> = Locked(0)) -> WebSocketChannel {
        var options = WebSocketOptions()
        configure(&options)
        let channel = WebSocketChannel(options: options, host: "127.0.0.1", port: 1, wake: { wakes.withLock { $0 += 1 } })
        channel.useRandom(SeededRandomSource(seed: 7))
        return channel
    }

    /// One turn of the I/O thread that reads `bytes` and writes all it is given: what it wrote,
    /// and what the channel said (after a second turn that reports the writes, as the loop's
    /// next turn does).
    @discardableResult
    private func turn(_ channel: WebSocketChannel, received bytes: [UInt8] = []) -> (written: [UInt8], turn: WebSocketChannel.Turn) {
        var output: [UInt8] = []
        var written = 0
        _ = bytes.withUnsafeBytes { channel.turn(received: $0, output: &output, written: &written) }
        let taken = Array(output[written...])
        written = output.count
        let after = channel.turn(received: UnsafeRawBufferPointer(start: nil, count: 0), output: &output, written: &written)
        #expect(output.isEmpty, "the second turn found frames queued between the two")
        return (taken, after)
    }

    /// Everything waiting to be written.
    /// A task that reads `channel` once and returns what `receive()` threw.
    private func reader(of channel: WebSocketChannel) -> Task<NetworkError?, Never> {
        Task {
            do throws(NetworkError) {
                _ = try await channel.receive()
                return nil
            } catch {
                return error
            }
        }
    }

    private func drain(_ channel: WebSocketChannel) -> [UInt8] {
        turn(channel).written
    }

    /// The frames in `bytes` as the server would read them: unmasked, with whether each was masked.
    private func clientFrames(_ bytes: [UInt8]) -> [(opcode: UInt8, fin: Bool, masked: Bool, payload: [UInt8])] {
        var frames: [(UInt8, Bool, Bool, [UInt8])] = []
        var index = 0
        while index < bytes.count {
            let fin = bytes[index] & 0x80 != 0, opcode = bytes[index] & 0x0F
            let masked = bytes[index + 1] & 0x80 != 0
            var length = Int(bytes[index + 1] & 0x7F)
            index += 2
            if length == 126 {
                length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
                index += 2
            } else if length == 127 {
                length = bytes[index..<(index + 8)].reduce(0) { $0 << 8 | Int($1) }
                index += 8
            }
            let key = masked ? Array(bytes[index..<(index + 4)]) : [0, 0, 0, 0]
            if masked { index += 4 }
            let payload = bytes[index..<(index + length)].enumerated().map { $0.element ^ key[$0.offset % 4] }
            index += length
            frames.append((opcode, fin, masked, payload))
        }
        return frames
    }

    @Test("sends are masked, cut into frames, and wait while the send buffer is full")
    func sendBackpressure() async throws {
        let channel = channel { $0.sendBufferSize = 100; $0.outgoingFrameSize = 64; $0.compression = false }
        try await channel.send(.binary(Data(repeating: 1, count: 150)))   // room: queued at once, over the limit
        let second = Task { try await channel.send(.text("second")) }
        // Only the first message can be waiting: the second is held until there is room.
        let first = clientFrames(drain(channel))
        #expect(first.map(\.opcode) == [2, 0, 0])
        #expect(first.map(\.fin) == [false, false, true])
        #expect(first.allSatisfy { $0.masked })
        #expect(first.flatMap(\.payload) == [UInt8](repeating: 1, count: 150))
        try await second.value
        let next = clientFrames(drain(channel))
        #expect(next.count == 1 && next[0].payload == Array("second".utf8) && next[0].masked)
    }

    @Test("the socket is read only while the reader's buffer has room; reading makes room and wakes the loop")
    func receiveBound() async throws {
        let wakes = Locked(0)
        let channel = channel({ $0.receiveBufferSize = 10 }, wakes: wakes)
        #expect(turn(channel).turn.wantsToRead)
        let bytes = Frames.frame(0x2, [UInt8](repeating: 1, count: 8)) + Frames.frame(0x2, [UInt8](repeating: 2, count: 8))
        #expect(!turn(channel, received: bytes).turn.wantsToRead)
        let before = wakes.withLock { $0 }
        #expect(try await channel.receive() == .binary(Data(repeating: 1, count: 8)))
        #expect(turn(channel).turn.wantsToRead)
        #expect(wakes.withLock { $0 } == before + 1)
        #expect(try await channel.receive() == .binary(Data(repeating: 2, count: 8)))
    }

    @Test("a ping is answered before any task reads; the peer's close ends the reader and the socket")
    func pingAndClose() async throws {
        let channel = channel()
        let bytes = Frames.frame(0x9, Array("are you there".utf8)) + Frames.frame(0x8, [0x03, 0xE8] + Array("bye".utf8))
        let (bytesWritten, after) = turn(channel, received: bytes)
        let written = clientFrames(bytesWritten)
        #expect(written.map(\.opcode) == [0xA, 0x8])
        #expect(written[0].payload == Array("are you there".utf8))
        #expect(written[1].payload == [0x03, 0xE8])
        #expect(after.dropWhenWritten && !after.dropNow)
        #expect(try await channel.receive() == nil)
        #expect(channel.closeStatus?.code == .normalClosure && channel.closeStatus?.reason == "bye")
    }

    @Test("a reader waiting when the socket drops gets connectionLost; a sender then fails")
    func dropped() async throws {
        let channel = channel()
        let reader = self.reader(of: channel)
        channel.socketEnded()
        guard case .connectionLost? = await reader.value else { Issue.record("the reader did not see the drop"); return }
        await #expect(throws: NetworkError.self) { try await channel.send(.text("late")) }
    }

    @Test("a reader cancelled at any moment of its wait ends cancelled, and the 1001 close is queued")
    func cancelledReaderAtAnyMoment() async throws {
        // The cancellation lands before, during or after the reader's continuation is stored;
        // each must end the reader (a lost one would wait for bytes that never come).
        for round in 0..<2_000 {
            let channel = channel()
            let reader = self.reader(of: channel)
            for _ in 0..<round % 5 { await Task.yield() }
            reader.cancel()
            guard case .cancelled? = await reader.value else { Issue.record("the reader did not end cancelled"); return }
            let close = clientFrames(drain(channel)).first
            #expect(close?.opcode == 0x8 && close?.payload == [0x03, 0xE9])
        }
    }

    @Test("bytes the loop took count against the send limit until a turn says they are written")
    func unsentCounts() async throws {
        let channel = channel { $0.sendBufferSize = 100; $0.compression = false }
        try await channel.send(.binary(Data(repeating: 1, count: 300)))
        var output: [UInt8] = []
        var written = 0
        var turn = channel.turn(received: UnsafeRawBufferPointer(start: nil, count: 0), output: &output, written: &written)
        #expect(output.count > 300 && written == 0 && !turn.writersWaiting)
        let second = Task { try await channel.send(.text("second")) }
        // The loop wrote a third: the rest still fills the buffer, so the sender waits.
        written = 100
        while !channel.turn(received: UnsafeRawBufferPointer(start: nil, count: 0), output: &output, written: &written).writersWaiting {
            await Task.yield()
        }
        #expect(written == 100)
        written = output.count
        turn = channel.turn(received: UnsafeRawBufferPointer(start: nil, count: 0), output: &output, written: &written)
        #expect(!turn.writersWaiting && output.isEmpty)
        try await second.value
        #expect(clientFrames(drain(channel)).map(\.payload) == [Array("second".utf8)])
    }

    @Test("mask keys from the system's generator differ from frame to frame, across refills")
    func maskKeys() async throws {
        let channel = WebSocketChannel(options: WebSocketOptions(), host: "127.0.0.1", port: 1, wake: {})
        channel.useRandom(SystemRandomSource())
        for _ in 0..<1_500 { try await channel.send(.binary(Data([0]))) }
        let bytes = drain(channel)
        // Each frame: 2 head bytes, the 4-byte key, 1 payload byte.
        let keys = stride(from: 0, to: bytes.count, by: 7).map { Array(bytes[($0 + 2)..<($0 + 6)]) }
        #expect(keys.count == 1_500)
        #expect(Set(keys).count > 1_490)
        var direct = WebSocketMaskKeys()
        let drawn = (0..<3_000).map { _ in direct.next() }
        #expect(Set(drawn).count > 2_990)
    }

    @Test("a send with nothing queued ahead is written by the task; what the socket does not take, or anything behind the loop's bytes, is queued for the loop")
    func sendersWrite() async throws {
        let wire = Locked<[UInt8]>([])
        let accept = Locked<Int>(.max)   // how many bytes the "socket" takes per write
        let wakes = Locked(0)
        let channel = WebSocketChannel(
            options: WebSocketOptions(), host: "127.0.0.1", port: 1, wake: { wakes.withLock { $0 += 1 } },
            writeNow: { bytes in
                let taken = min(bytes.count, accept.withLock { $0 })
                wire.withLock { $0 += bytes[0..<taken] }
                return taken
            })
        channel.useRandom(SeededRandomSource(seed: 7))
        try await channel.send(.text("one"))
        #expect(clientFrames(wire.withLock { $0 }).map(\.payload) == [Array("one".utf8)])
        #expect(wakes.withLock { $0 } == 0 && drain(channel).isEmpty)

        // A full socket: part written, the rest queued for the loop, which is woken.
        accept.withLock { $0 = 3 }
        try await channel.send(.text("two"))
        #expect(wakes.withLock { $0 } == 1)
        let rest = drain(channel)
        #expect(clientFrames(Array(wire.withLock { $0 }.dropFirst(9)) + rest).map(\.payload) == [Array("two".utf8)])

        // Bytes the loop holds unwritten go first: the next send is queued behind them.
        accept.withLock { $0 = .max }
        wire.withLock { $0 = [] }
        try await channel.send(.text("three"))
        var output: [UInt8] = []
        var written = 0
        _ = channel.turn(received: UnsafeRawBufferPointer(start: nil, count: 0), output: &output, written: &written)
        #expect(output.isEmpty)
        wire.withLock { $0 = [] }
        accept.withLock { $0 = 0 }
        try await channel.send(.text("four"))
        _ = channel.turn(received: UnsafeRawBufferPointer(start: nil, count: 0), output: &output, written: &written)
        accept.withLock { $0 = .max }
        try await channel.send(.text("five"))
        #expect(wire.withLock { $0 }.isEmpty, "a send overtook bytes the loop holds")
        written = output.count
        _ = channel.turn(received: UnsafeRawBufferPointer(start: nil, count: 0), output: &output, written: &written)
        #expect(clientFrames(output).map(\.payload) == [Array("five".utf8)])
    }
}
