import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Admission by priority, on the fixed limit and the adaptive one: which waiting call starts
/// next, and which is shed when the queue is full. A transport that holds every request makes
/// the order deterministic: a call reaches it only once admission let it run.
@Suite(.timeLimit(.minutes(2))) struct PriorityAdmissionTests {
    private func call(_ api: APIClient, _ path: String, _ priority: RequestPriority?) -> Task<Response<EmptyResponse>, any Error> {
        Task { try await api.send(Endpoint<EmptyResponse>(path: path, options: RequestOptions(priority: priority))) }
    }

    private func isOverloaded(_ call: Task<Response<EmptyResponse>, any Error>) async -> Bool {
        if case .overloaded? = await failure(of: call) { true } else { false }
    }

    private func queued(_ api: APIClient, _ count: Int) async {
        await waitUntil { (try? await api.pipelineStats()).map { $0.queued == count } ?? false }
    }

    /// Releases held calls one at a time, each only once the next reached the transport, until
    /// `count` calls arrived.
    private func releaseInTurn(_ transport: HeldTransport, until count: Int) async {
        while transport.arrived.count < count {
            let before = transport.arrived.count
            transport.releaseOldest()
            await waitUntil { transport.arrived.count > before }
        }
        transport.releaseAll()
    }

    @Test("waiting calls start highest priority first, in arrival order within one priority")
    func waitingCallsStartByPriority() async throws {
        let transport = HeldTransport()
        let api = client(URL(string: "https://api.test")!, transport: transport, retryPolicy: .never) {
            $0.limits.maxConcurrentRequests = 1
        }
        var calls = [call(api, "first", nil)]
        await waitUntil { transport.heldCount == 1 }
        let order: [(String, RequestPriority?)] = [
            ("bg1", .background), ("def1", nil), ("int1", .interactive), ("bg2", .background), ("int2", .interactive), ("def2", .default),
        ]
        for (index, (path, priority)) in order.enumerated() {
            calls.append(call(api, path, priority))
            await queued(api, index + 1)   // arrived in this order
        }
        await releaseInTurn(transport, until: 7)
        for call in calls { _ = try await call.value }
        #expect(transport.arrived == ["/first", "/int1", "/int2", "/def1", "/def2", "/bg1", "/bg2"])
        await api.shutdown()
    }

    @Test("a full queue sheds the newest waiting call of the lowest priority below the newcomer's, else the newcomer")
    func fullQueueShedsTheLowestPriorityFirst() async throws {
        let transport = HeldTransport()
        let api = client(URL(string: "https://api.test")!, transport: transport, retryPolicy: .never) {
            $0.limits.maxConcurrentRequests = 1
            $0.limits.maxQueuedRequests = 3
        }
        let stream = api.events(buffer: 100)
        let first = call(api, "first", nil)
        await waitUntil { transport.heldCount == 1 }
        let bg1 = call(api, "bg1", .background)
        await queued(api, 1)
        let bg2 = call(api, "bg2", .background)
        await queued(api, 2)
        let def1 = call(api, "def1", .default)
        await queued(api, 3)

        // Full: an interactive newcomer takes the place of the newest background call…
        let int1 = call(api, "int1", .interactive)
        #expect(await isOverloaded(bg2))
        // …a default one that of the other background call…
        let def2 = call(api, "def2", .default)
        #expect(await isOverloaded(bg1))
        // …and with nothing below its own priority waiting, the newcomer is refused.
        #expect(await isOverloaded(call(api, "bg3", .background)))
        #expect(await isOverloaded(call(api, "def3", .default)))

        let stats = try await api.pipelineStats()
        #expect(stats.shed == 4)
        #expect(stats.rejected == 2)
        #expect(stats.queued == 3)
        let shed = await collect(stream) { $0.count { if case .shed = $0 { true } else { false } } == 4 }.compactMap { event in
            if case .shed(_, let priority) = event { priority } else { nil }
        }
        #expect(shed == [.background, .background, .background, .default])

        await releaseInTurn(transport, until: 4)
        for call in [first, def1, int1, def2] { _ = try await call.value }
        #expect(transport.arrived == ["/first", "/int1", "/def1", "/def2"])   // the shed never reached it
        await api.shutdown()
    }

    @Test("a replay of the offline queue waits as background: a default call takes its place in a full queue")
    func offlineDrainIsBackground() async throws {
        let transport = HeldTransport()
        let api = client(URL(string: "https://api.test")!, transport: transport, retryPolicy: .never) {
            $0.limits.maxConcurrentRequests = 1
            $0.limits.maxQueuedRequests = 1
            $0.connectivity = .init(debounce: .zero, watchesLink: false)
            $0.offline = .init()
        }
        let stream = api.events(buffer: 100)
        let first = call(api, "first", nil)
        await waitUntil { transport.heldCount == 1 }
        _ = try await api.offline.enqueue(noteWrite(1))
        let sync = Task { try await api.offline.sync() }
        await queued(api, 1)   // the replay waits for the slot
        let second = call(api, "second", nil)
        let shed = await events(stream) { if case .shed = $0 { true } else { false } }.last
        guard case .shed(_, .background) = shed else {
            Issue.record("expected the replay shed as background, got \(String(describing: shed))")
            return
        }
        _ = try await sync.value   // the replay was refused: `overloaded`, retried later
        await releaseInTurn(transport, until: 2)
        _ = try await first.value
        _ = try await second.value
        #expect(transport.arrived == ["/first", "/second"])
        await api.shutdown()
    }

    @Test("under an adaptive limit an origin's dropped calls lower its limit, published as an event")
    func adaptiveLimitFollowsDrops() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/busy", [.delayed(.milliseconds(10), .status(503))])
        let api = client(URL(string: "https://api.test")!, transport: transport, retryPolicy: .never, clock: clock) {
            $0.limits.adaptive = ConcurrencyLimitPolicy(initialLimit: 2, minLimit: 1, maxLimit: 4)
        }
        let stream = api.events(buffer: 100)
        for _ in 0..<2 {
            let busy = call(api, "busy", nil)
            await clock.waitForSleepers(1)
            clock.advance(by: .milliseconds(10))
            #expect(await failure(of: busy)?.statusCode == 503)
        }
        // The first sample gives the no-load latency; the second, dropped, lowers the limit.
        // Samples are collected with the pipeline's next message.
        _ = try await api.pipelineStats()
        let changed = await events(stream) { if case .concurrencyLimitChanged = $0 { true } else { false } }.last
        guard case .concurrencyLimitChanged(_, let origin, let limit) = changed else {
            Issue.record("no limit change")
            return
        }
        #expect(origin == "https://api.test:443")
        #expect(limit == 1)
        await api.shutdown()
    }
}

extension PriorityAdmissionTests {
    @Test("against a real server, an origin's adaptive limit caps the calls in flight the server sees")
    func adaptiveLimitCapsWhatTheServerSees() async throws {
        try await withScriptedServer { server in
            try await server.script("/gated", [.afterRelease()])
            let cap = 3
            // The limit may only fall below its start: the server never sees more than `cap`.
            let api = client(server.baseURL, retryPolicy: .never) {
                $0.limits.adaptive = ConcurrencyLimitPolicy(initialLimit: cap, minLimit: 1, maxLimit: cap)
            }
            let calls = (0..<10).map { _ in Task { try await api.send(Endpoint<EmptyResponse>(path: "gated")) } }
            // A release answers every call the server holds; then the next ones come in. At
            // each round the server holds `cap` calls and the rest wait in the client.
            for round in 1...4 {
                let seen = min(10, cap * round)
                _ = try await server.waitForRequests(path: "/gated", count: seen)
                await waitUntil { (try? await api.pipelineStats()).map { $0.queued == 10 - seen } ?? false }
                #expect(try await server.requests(path: "/gated").count == seen)
                #expect(try await api.pipelineStats().inFlight <= cap)
                try await server.release(path: "/gated")
            }
            for call in calls { _ = try await call.value }
            #expect(try await server.requests(path: "/gated").count == 10)
            await api.shutdown()
        }
    }
}
