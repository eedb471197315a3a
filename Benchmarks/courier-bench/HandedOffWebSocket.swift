#if canImport(CCurl)
import CCurl
import Courier
import Foundation
import Glibc

/// The raw libcurl loop (``RawCurlWebSocket``) with the hand-offs of Courier's design and
/// nothing else: a task asks for each round trip and awaits it; the loop's thread, woken through
/// a pipe, frames, masks and sends the message, waits in `poll` for the echo and resumes the
/// task. What any WebSocket whose socket belongs to one thread and whose reader is a Swift task
/// pays: the floor of Courier's own row, one message in flight.
final class HandedOffWebSocket: Sendable {
    /// The task awaiting the echo, and the loop's verdict on it.
    private let waiter = Locked<CheckedContinuation<Bool, Never>?>(nil)
    /// The pipe a task writes to, to wake the loop for the next message.
    private let wakeRead: Int32
    private let wakeWrite: Int32

    private init(pipe descriptors: [Int32]) {
        (wakeRead, wakeWrite) = (descriptors[0], descriptors[1])
    }

    /// Echoes `messages` messages one at a time, each asked for by this task and sent by the
    /// loop's thread; the connecting is not measured.
    static func measure(port: Int, payload: [UInt8], messages: Int) async -> Measurement {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { return failed(messages, "pipe() failed") }
        let loop = HandedOffWebSocket(pipe: descriptors)
        defer { close(descriptors[0]); close(descriptors[1]) }
        let opened = await withCheckedContinuation { (started: CheckedContinuation<Bool, Never>) in
            Thread.detachNewThread { loop.run(port: port, payload: payload, started: started) }
        }
        guard opened else { return failed(messages, "the handed-off loop could not open the WebSocket") }
        let clock = ContinuousClock()
        var latencies: [Duration] = []
        latencies.reserveCapacity(messages)
        let usageBefore = ProcessUsage.now
        let start = clock.now
        for _ in 0..<messages {
            let sent = clock.now
            guard await loop.roundTrip() else { break }
            latencies.append(clock.now - sent)
        }
        let elapsed = clock.now - start
        let usage = ProcessUsage.now - usageBefore
        loop.wake(0)
        var measurement = Measurement(requests: messages, failures: messages - latencies.count, elapsed: elapsed, latencies: latencies.sorted())
        measurement.usage = usage
        if latencies.count < messages { measurement.firstFailure = "the handed-off loop failed an echo" }
        return measurement
    }

    private static func failed(_ messages: Int, _ why: String) -> Measurement {
        var failed = Measurement(requests: messages, failures: messages, elapsed: .seconds(1), latencies: [])
        failed.firstFailure = why
        return failed
    }

    /// One round trip: the loop is woken to send, and resumes this task with the echo's verdict.
    private func roundTrip() async -> Bool {
        await withCheckedContinuation { continuation in
            waiter.withLock { $0 = continuation }
            wake(1)
        }
    }

    /// Wakes the loop: 1 for the next message, 0 to stop.
    private func wake(_ byte: UInt8) {
        var value = byte
        _ = write(wakeWrite, &value, 1)
    }

    /// The loop's thread: connects, then sends a message per wake-up and resumes the waiter
    /// with each echo, until told to stop or the connection fails.
    private func run(port: Int, payload: [UInt8], started: CheckedContinuation<Bool, Never>) {
        let (multi, easy, opened) = RawCurlWebSocket.connect(port: port)
        defer { RawCurlWebSocket.disconnect(multi, easy) }
        guard let socket = opened else {
            started.resume(returning: false)
            return
        }
        started.resume(returning: true)
        var output: [UInt8] = []
        var input: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        var random = UInt64(truncatingIfNeeded: MonotonicTime.now) | 1
        var descriptors = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0), pollfd(fd: socket, events: Int16(POLLIN), revents: 0)]
        // The echo's verdict, given to the waiter; false ends the loop after it.
        func answer(_ ok: Bool) -> Bool {
            waiter.withLock { waiting in
                let continuation = waiting
                waiting = nil
                return continuation
            }?.resume(returning: ok)
            return ok
        }
        while poll(&descriptors, 2, 10_000) > 0 {
            if descriptors[0].revents != 0 {
                var byte: UInt8 = 0
                guard read(wakeRead, &byte, 1) == 1, byte == 1 else { return }
                random ^= random << 13
                random ^= random >> 7
                random ^= random << 17
                let key = UInt32(truncatingIfNeeded: random)
                output.removeAll(keepingCapacity: true)
                WebSocketFraming.appendHead(to: &output, opcode: WebSocketFraming.binaryOpcode, length: payload.count, maskKey: key)
                let payloadStart = output.count
                output += payload
                output.withUnsafeMutableBytes { WebSocketFrame.mask(UnsafeMutableRawBufferPointer(rebasing: $0[payloadStart...]), key: key) }
                guard RawCurlWebSocket.sendAll(output, easy: easy, socket: socket, waitMilliseconds: 10_000) else { _ = answer(false); return }
            }
            if descriptors[1].revents != 0 {
                while true {
                    var count = 0
                    let code = chunk.withUnsafeMutableBytes { curl_easy_recv(easy, $0.baseAddress!, $0.count, &count) }
                    if code == CURLE_AGAIN { break }
                    guard code == CURLE_OK, count > 0 else { _ = answer(false); return }
                    input.append(contentsOf: chunk[0..<count])
                    guard let head = input.withUnsafeBytes({ WebSocketFraming.head($0) }),
                          input.count - head.headLength >= head.payloadLength else { continue }
                    let ok = head.opcode == WebSocketFraming.binaryOpcode && head.payloadLength == payload.count
                        && input.withUnsafeBytes { echoed in
                            payload.withUnsafeBytes { memcmp(echoed.baseAddress! + head.headLength, $0.baseAddress!, $0.count) == 0 }
                        }
                    input.removeFirst(head.headLength + head.payloadLength)
                    guard answer(ok) else { return }
                    break
                }
            }
        }
        _ = answer(false)
    }
}
#endif
