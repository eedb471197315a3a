import Courier
import Foundation

/// The WebSocket rows (`--url` runs, `--only websocket`): echo round trips against
/// ``WebSocketEchoServer`` on loopback (its own process, so its CPU is not counted), for 64-byte
/// and 64 KiB binary messages, one in flight and 16 in flight, in interleaved rounds:
/// `raw libcurl` (``RawCurlWebSocket``, the floor), `webSocket` (``APIClient/webSocket(url:headers:options:)``
/// over ``CurlTransport``, compression off: send, then await the echo) and, one in flight,
/// `hand-offs` (``HandedOffWebSocket``: the raw loop behind the same two thread hand-offs as
/// Courier's design, the floor of that design). Every run opens its own socket, outside the
/// measured time; every echo is checked byte for byte. Ratios are to
/// the `raw libcurl` row; the floor is the issue's: `webSocket` ≥ 0.8× raw libcurl's round trips
/// per second.
struct WebSocketComparison {
    let options: Options
    let rows: RowRecorder

    /// Courier's round trips per second ÷ raw libcurl's, at least.
    static let floor = 0.8

    func run() async {
        #if canImport(CCurl)
        let server: WebSocketEchoProcess
        switch await WebSocketEchoProcess.start(existingPort: options.webSocketPort) {
        case .success(let started): server = started
        case .failure(let failure):
            print("\nwebsocket rows skipped: \(failure)")
            return
        }
        defer { server.stop() }
        let client = Self.client(port: server.port)
        let rounds = options.quick ? 2 : 4
        print("\nwebsocket: echo round trips against a loopback echo server (a process of its own, its CPU not counted), binary messages, compression off")
        print("raw libcurl: CONNECT_ONLY + curl_easy_send/recv on one thread, framing and masking by hand (the floor); webSocket: client.webSocket(url:) over CurlTransport, send then await the echo")
        print("hand-offs (1 in flight): the raw loop on its thread, each message asked for by a task (a pipe wakes the loop) and its echo resuming it: the floor of Courier's design")
        print("conc: messages in flight; requests, req/s, p50-p99: echo round trips; cpu: this process's CPU per message")
        print(Benchmark.header)
        for (label, size, messages) in [("64 B", 64, options.quick ? 4_000 : 60_000), ("64 KiB", 65_536, options.quick ? 1_000 : 10_000)] {
            var generator = SystemRandomNumberGenerator()
            let payload = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for window in [1, 16] {
                let raw: Runner = { count, _ in await RawCurlWebSocket.measure(port: server.port, payload: payload, messages: count, window: window) }
                let courier: Runner = { count, _ in await Self.echo(client, port: server.port, payload: Data(payload), messages: count, window: window) }
                _ = await raw(max(messages / 10, 100), window)
                _ = await courier(max(messages / 10, 100), window)
                var paths = [raw, courier]
                if window == 1 {
                    let handedOff: Runner = { count, _ in await HandedOffWebSocket.measure(port: server.port, payload: payload, messages: count) }
                    _ = await handedOff(max(messages / 10, 100), window)
                    paths.append(handedOff)
                }
                let results = await measureInterleaved(requests: messages, concurrency: window, rounds: rounds, paths)
                rows.report("raw libcurl \(label)", "websocket", window, results[0], baseline: results[0], messages: 0)
                rows.report("webSocket \(label)", "websocket", window, results[1], baseline: results[0], messages: 0)
                if results.count > 2 { rows.report("hand-offs \(label)", "websocket", window, results[2], baseline: results[0], messages: 0) }
                print(String(
                    format: "  %@, %d in flight: webSocket / raw libcurl round trips/s %.2f (floor >= %.1f), cpu per message %.2f of raw libcurl's",
                    label, window, results[1].requestsPerSecond / results[0].requestsPerSecond, Self.floor,
                    results[1].cpuMicrosPerRequest / results[0].cpuMicrosPerRequest)
                    + (results.count > 2 ? String(
                        format: "; webSocket / hand-offs round trips/s %.2f, cpu %.2f", results[1].requestsPerSecond / results[2].requestsPerSecond,
                        results[1].cpuMicrosPerRequest / results[2].cpuMicrosPerRequest) : ""))
            }
        }
        await client.shutdown()
        #else
        fail("the WebSocket rows compare Courier's libcurl transport, which is built on Linux only")
        #endif
    }

    #if canImport(CCurl)
    /// A client over a fresh ``CurlTransport`` on the echo server's origin, retries off.
    static func client(port: Int) -> APIClient {
        APIClient(configuration: .init(baseURL: URL(string: "http://127.0.0.1:\(port)")!, transport: CurlTransport(), retryPolicy: .never))
    }

    /// Opens a WebSocket (compression off), echoes `messages` messages with `window` in flight
    /// from one task (send `window`, then one more after each echo), and closes it; the
    /// opening is not measured.
    static func echo(_ client: APIClient, port: Int, payload: Data, messages: Int, window: Int) async -> Measurement {
        var socketOptions = WebSocketOptions()
        socketOptions.compression = false
        let socket: WebSocket
        do {
            socket = try await client.webSocket(url: URL(string: "ws://127.0.0.1:\(port)/echo")!, options: socketOptions)
        } catch {
            var failed = Measurement(requests: messages, failures: messages, elapsed: .seconds(1), latencies: [])
            failed.firstFailure = "\(error)"
            return failed
        }
        defer { socket.close() }
        let clock = ContinuousClock()
        var iterator = socket.messages.makeAsyncIterator()
        var sendTimes: [ContinuousClock.Instant] = []
        sendTimes.reserveCapacity(messages)
        var latencies: [Duration] = []
        latencies.reserveCapacity(messages)
        var firstFailure: String?
        let usageBefore = ProcessUsage.now
        let start = clock.now
        do {
            while sendTimes.count < min(window, messages) {
                sendTimes.append(clock.now)
                try await socket.send(.binary(payload))
            }
            while latencies.count < messages {
                guard case .binary(let echoed)? = try await iterator.next(), echoed == payload else {
                    firstFailure = "an echo that is not the message sent"
                    break
                }
                latencies.append(clock.now - sendTimes[latencies.count])
                if sendTimes.count < messages {
                    sendTimes.append(clock.now)
                    try await socket.send(.binary(payload))
                }
            }
        } catch {
            firstFailure = "\(error)"
        }
        let elapsed = clock.now - start
        let usage = ProcessUsage.now - usageBefore
        var measurement = Measurement(requests: messages, failures: messages - latencies.count, elapsed: elapsed, latencies: latencies.sorted())
        measurement.usage = usage
        measurement.firstFailure = firstFailure
        return measurement
    }
    #endif

    /// `--profile websocket|websocket-raw|websocket-handoff`: one path alone, one message in
    /// flight, after 1,000 warm-up echoes.
    static func profile(_ path: Options.ProfilePath, messages: Int, messageBytes: Int, port: Int?) async {
        #if canImport(CCurl)
        let server: WebSocketEchoProcess
        switch await WebSocketEchoProcess.start(existingPort: port) {
        case .success(let started): server = started
        case .failure(let failure): fail("\(failure)")
        }
        defer { server.stop() }
        let payload = (0..<messageBytes).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let client = Self.client(port: server.port)
        let run: Runner = switch path {
        case .webSocketRaw: { count, _ in await RawCurlWebSocket.measure(port: server.port, payload: payload, messages: count, window: 1) }
        case .webSocketHandOff: { count, _ in await HandedOffWebSocket.measure(port: server.port, payload: payload, messages: count) }
        default: { count, _ in await Self.echo(client, port: server.port, payload: Data(payload), messages: count, window: 1) }
        }
        _ = await run(1_000, 1)
        let result = await run(messages, 1)
        await client.shutdown()
        print(String(
            format: "profile: %@, %d messages of %d bytes, one in flight (+1000 warm-up), %d failed, %.0f round trips/s, %.1f us cpu per message",
            path.rawValue, messages, messageBytes, result.failures, result.requestsPerSecond, result.cpuMicrosPerRequest))
        #endif
    }
}
