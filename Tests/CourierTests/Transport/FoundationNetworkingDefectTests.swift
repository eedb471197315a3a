import CourierTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@testable import Courier

/// Each test pins one FoundationNetworking defect that `URLSessionTransport` works around (the
/// list is in ARCHITECTURE.md), against the scripted server over real HTTP.
@Suite struct FoundationNetworkingDefectTests {
    let transport = URLSessionTransport()

    @Test("a 401 with a Basic challenge comes back as the response instead of hanging")
    func a401WithABasicChallengeComesBackAsTheResponseInsteadOfHanging() async throws {
        try await withScriptedServer { server in
            let challenge = ["WWW-Authenticate": "Basic realm=\"api\""]
            try await server.script("/basic", [.json(401, #"{"message":"wrong password"}"#, headers: challenge)])
            try await server.script("/proxy", [.status(407, headers: ["Proxy-Authenticate": "Basic realm=\"proxy\""])])
            let response = try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/basic")!, timeout: .seconds(30)))
            #expect(response.status == 401)
            #expect(response.headers["WWW-Authenticate"] == "Basic realm=\"api\"")
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"message":"wrong password"}"#)
            let proxy = try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/proxy")!, timeout: .seconds(30)))
            #expect(proxy.status == 407)

            // Through the client: unauthorized with the response, sent once, not retried as a timeout.
            let api = client(server.baseURL, retryPolicy: .default)
            let error = await #expect(throws: NetworkError.self) { try await api.send(Endpoint<User>(path: "basic")) }
            guard case .unauthorized(let failed?)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(failed.headers["WWW-Authenticate"] == "Basic realm=\"api\"")
            #expect(error?.serverMessage == "wrong password")
            #expect(try await server.requests(path: "/basic").count == 2)   // one from the transport, one from the client
            await api.shutdown()
        }
    }

    /// FoundationNetworking truncates `timeoutInterval` to whole seconds: 0.9 s fired at once and
    /// 1.5 s at 1 s. Courier's own timer is the one that fires.
    @Test("a fractional timeout fires when it should, not at a whole second", arguments: [0.3, 0.9, 1.5])
    func aFractionalTimeoutFiresWhenItShouldNotAtAWholeSecond(seconds: Double) async throws {
        try await withScriptedServer { server in
            try await server.script("/slow", [.delayed(30, body: "late")])
            let timeout = Duration.milliseconds(Int64(seconds * 1000))
            let started = ContinuousClock.now
            let error = await #expect(throws: NetworkError.self) {
                try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/slow")!, timeout: timeout))
            }
            let elapsed = ContinuousClock.now - started
            guard case .timeout(.attempt, _)? = error else { Issue.record("got \(String(describing: error))"); return }
            // Not before the timeout (truncation fired early); the server answers only at 30 s,
            // so the timeout error is Courier's timer's.
            #expect(elapsed >= timeout)
        }
    }

    @Test("through the client a timeout says whether the attempt or the request deadline fired")
    func throughTheClientATimeoutSaysWhetherTheAttemptOrTheRequestDeadlineFired() async throws {
        try await withScriptedServer { server in
            try await server.script("/slow", [.delayed(5, body: "late")])
            // The deadline is far: the first attempt is labelled `.request` when what is left of
            // the deadline when it starts is under 300 ms, and under ThreadSanitizer, with every
            // suite starting at once on two cores, a request has waited 10 s to be scheduled.
            let attempt = client(server.baseURL, retryPolicy: .never) {
                $0.timeouts = .init(attempt: .milliseconds(300), request: .seconds(120))
            }
            let first = await #expect(throws: NetworkError.self) { try await attempt.data(for: Endpoint<EmptyResponse>(path: "slow")) }
            guard case .timeout(.attempt, _)? = first else { Issue.record("got \(String(describing: first))"); return }
            let deadline = client(server.baseURL, retryPolicy: .never) {
                $0.timeouts = .init(attempt: .seconds(10), request: .milliseconds(300))
            }
            let second = await #expect(throws: NetworkError.self) { try await deadline.data(for: Endpoint<EmptyResponse>(path: "slow")) }
            guard case .timeout(.request, _)? = second else { Issue.record("got \(String(describing: second))"); return }
            await attempt.shutdown()
            await deadline.shutdown()
        }
    }

    /// FoundationNetworking ignores `.cancel` from `didReceive response` on Linux and buffered a
    /// 50 MB body whole (about +54 MB of peak RSS) against a 10 MiB limit.
    ///
    /// Peak RSS is process-wide, and the other suites run in parallel, so the measurement runs
    /// in a child process that runs this test alone (`COURIER_MEASURE_PEAK_RSS` set); the child
    /// reports how much its peak grew.
    @Test("an oversized body is refused without being buffered")
    func anOversizedBodyIsRefusedWithoutBeingBuffered() async throws {
        let limit = 10 * 1024 * 1024
        try await withScriptedServer { server in
            try await server.script("/huge", [.sized(50 * 1024 * 1024)])
            try await server.script("/huge-chunked", [.chunked(50 * 1024 * 1024)])
            let measuring = ProcessInfo.processInfo.environment["COURIER_MEASURE_PEAK_RSS"] != nil
            ProcessMemory.resetPeak()
            let before = ProcessMemory.peakKiB
            let error = await #expect(throws: NetworkError.self) {
                try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/huge")!, maximumResponseSize: limit))
            }
            guard case .responseTooLarge(limit)? = error else { Issue.record("got \(String(describing: error))"); return }
            if measuring { print("peak RSS grew by \(ProcessMemory.peakKiB - before) KiB") }
            // Refused at the head: the body's first byte was never kept.
            #expect(transport.bytesAccepted == 0)

            let chunked = await #expect(throws: NetworkError.self) {
                try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/huge-chunked")!, maximumResponseSize: limit))
            }
            guard case .responseTooLarge(limit)? = chunked else { Issue.record("got \(String(describing: chunked))"); return }
            // Refused at the chunk that passed the limit: never more than the limit was kept.
            #expect(transport.bytesAccepted <= limit)
            if measuring { print("accepted \(transport.bytesAccepted) bytes of a 50 MiB chunked body") }
        }
        guard ProcessInfo.processInfo.environment["COURIER_MEASURE_PEAK_RSS"] == nil else { return }
        let grown = try ProcessMemory.peakGrowthInChildRun(of: "anOversizedBodyIsRefusedWithoutBeingBuffered")
        #expect(grown < 15 * 1024, "peak RSS grew by \(grown) KiB")
    }

    /// `HTTPURLResponse.allHeaderFields` is a dictionary on Linux: repeated fields arrive joined.
    @Test("repeated response fields arrive joined over URLSession and apart in memory")
    func repeatedResponseFieldsArriveJoinedOverURLSessionAndApartInMemory() async throws {
        let cookies = [["Set-Cookie", "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT"], ["Set-Cookie", "b=2"]]
        try await withScriptedServer { server in
            try await server.script("/cookies", [ScriptedResponse(status: 200, headerList: cookies)])
            let response = try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/cookies")!))
            #if canImport(FoundationNetworking)
            #expect(response.headers.values(for: "Set-Cookie") == ["a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT, b=2"])
            #else
            #expect(!response.headers.values(for: "Set-Cookie").isEmpty)
            #endif
        }
        let twice = HTTPResponse(status: 200, headers: HTTPHeaders(cookies.map { ($0[0], $0[1]) }))
        let inMemory = try await InMemoryTransport(always: twice).send(HTTPRequest(url: URL(string: "https://h/x")!))
        #expect(inMemory.headers.values(for: "Set-Cookie") == ["a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT", "b=2"])
    }
}

/// Peak resident memory of this process, from /proc.
enum ProcessMemory {
    /// `VmHWM` in KiB (0 where /proc is unavailable).
    static var peakKiB: Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") } ?? 0
    }

    /// Resets `VmHWM` to the current RSS (Linux ≥ 4.0), so a peak measures what comes next.
    static func resetPeak() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// Runs test `name` alone in a child of this test binary, with `COURIER_MEASURE_PEAK_RSS`
    /// set, and returns the growth it printed (`peak RSS grew by N KiB`).
    static func peakGrowthInChildRun(of name: String) throws -> Int {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["--testing-library", "swift-testing", "--filter", name]
        child.environment = ProcessInfo.processInfo.environment.merging(["COURIER_MEASURE_PEAK_RSS": "1"]) { $1 }
        let output = Pipe()
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()
        let text = String(decoding: output.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        guard child.terminationStatus == 0,
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("peak RSS grew by ") }),
              let kib = Int(line.dropFirst("peak RSS grew by ".count).prefix { $0.isNumber })
        else {
            throw ChildRunFailed(status: child.terminationStatus, output: String(text.suffix(2_000)))
        }
        return kib
    }

    struct ChildRunFailed: Error, CustomStringConvertible {
        let status: Int32
        let output: String
        var description: String { "the child run exited \(status):\n\(output)" }
    }
}
