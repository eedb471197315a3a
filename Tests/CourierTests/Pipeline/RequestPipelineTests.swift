import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite(.timeLimit(.minutes(5))) struct RequestPipelineTests {
    @Test("past the queue bound requests are overloaded and memory stays bounded")
    func pastTheQueueBoundRequestsAreOverloadedAndMemoryStaysBounded() async throws {
        let transport = ScriptedTransport()
        transport.script("/hang", [.hang])
        let api = client(URL(string: "https://api.test")!, transport: transport) {
            $0.limits.maxConcurrentRequests = 4
            $0.limits.maxQueuedRequests = 16
        }
        let rejections = api.events(buffer: 5_000)   // every refusal (shed, then failed) is counted below
        let calls = (0..<2_000).map { _ in Task { try await api.send(Endpoint<EmptyResponse>(path: "hang")) } }
        // 4 run and 16 wait; every other request is refused at once.
        // (The running requests' `started` and `attempt` events may come among them.)
        let refused = await finalEvents(rejections, count: 1_980).filter {
            switch $0 {
            case .finished, .failed: true
            default: false
            }
        }
        #expect(refused.count == 1_980)
        #expect(refused.allSatisfy { if case .failed(_, .overloaded, 0, _) = $0 { true } else { false } })
        let stats = try await api.pipelineStats()
        #expect(stats.inFlight == 4)
        #expect(stats.queued == 16)
        #expect(stats.rejected == 1_980)

        // Cancelling the rest frees everything: no task is left behind.
        let stream = api.events()
        var overloaded = 0
        for call in calls { call.cancel() }
        var cancelled = 0
        for call in calls {
            switch await failure(of: call) {
            case .cancelled?: cancelled += 1
            case .overloaded?: overloaded += 1
            default: Issue.record("unexpected outcome")
            }
        }
        #expect(cancelled == 20)
        #expect(overloaded == 1_980)
        _ = await finalEvents(stream, count: 4)          // the 4 running requests' tasks have ended
        let after = try await api.pipelineStats()
        #expect(after.inFlight == 0)
        #expect(after.queued == 0)
        #expect(transport.requests.count == 4)           // queued requests never reached the transport
        await api.shutdown()
    }

    @Test("ten thousand concurrent requests get their own answers")
    func tenThousandConcurrentRequestsGetTheirOwnAnswers() async throws {
        let transport = InMemoryTransport { request throws(NetworkError) in
            let id = Int(request.url.lastPathComponent) ?? -1
            return HTTPResponse(status: 200, body: Data(#"{"id":\#(id),"name":"user-\#(id)"}"#.utf8))
        }
        let api = client(URL(string: "https://api.test")!, transport: transport) {
            $0.limits.maxQueuedRequests = 10_000
            $0.auth = AuthInterceptor { "t" }
        }
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for id in 0..<10_000 {
                group.addTask {
                    guard let user = try? await api.send(Endpoint<User>(path: "users/\(id)")).value else { return 1 }
                    return user == User(id: id, name: "user-\(id)") ? 0 : 1
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        let stats = try await api.pipelineStats()
        #expect(stats.admitted == 10_000)
        #expect(stats.inFlight == 0 && stats.queued == 0)
        // execute per request, finished for those that ended while others waited, and this ask
        #expect((10_001...20_001).contains(stats.messagesHandled))
        await api.shutdown()
    }
}

extension RequestPipelineTests {
    @Test("cancelling the caller reaches the server")
    func cancellingTheCallerReachesTheServer() async throws {
        try await withScriptedServer { server in
            try await server.script("/hold", [.hold])
            let api = client(server.baseURL)
            let stream = api.events()
            let call = Task { try await api.send(Endpoint<User>(path: "hold")) }
            _ = try await server.waitForRequests(path: "/hold", count: 1)
            call.cancel()
            let error = await #expect(throws: NetworkError.self) { try await call.value }
            guard case .cancelled? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(try await server.waitForDisconnect(path: "/hold"))
            let seen = await finalEvents(stream, count: 1)
            guard case .failed(_, .cancelled, _, _)? = seen.last else { Issue.record("last event \(String(describing: seen.last))"); return }
            let stats = try await api.pipelineStats()
            #expect(stats.inFlight == 0)
            #expect(try await server.requests(path: "/hold").count == 1)   // a cancellation is never retried
            await api.shutdown()
        }
    }

    @Test("a cancelled request never reaches the transport when cancelled early")
    func aCancelledRequestNeverReachesTheTransportWhenCancelledEarly() async throws {
        let transport = ScriptedTransport()
        let api = client(URL(string: "https://api.test")!, transport: transport)
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await api.send(Endpoint<User>(path: "users/1")).value
        }
        let error = await #expect(throws: NetworkError.self) { try await call.value }
        guard case .cancelled? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(transport.requests.isEmpty)
        await api.shutdown()
    }

    @Test("calls after shutdown are unavailable")
    func callsAfterShutdownAreUnavailable() async throws {
        let api = client(URL(string: "https://api.test")!, transport: ScriptedTransport())
        await api.shutdown()
        let error = await #expect(throws: NetworkError.self) { try await api.send(Endpoint<User>(path: "users/1")) }
        guard case .componentUnavailable("RequestPipeline")? = error else { Issue.record("got \(String(describing: error))"); return }
    }

    @Test("events describe a retried request")
    func eventsDescribeARetriedRequest() async throws {
        let transport = ScriptedTransport()
        transport.script("/flaky", [.status(500), .json(#"{"id":1,"name":"A"}"#)])
        let api = client(URL(string: "https://api.test")!, transport: transport)
        let stream = api.events()
        _ = try await api.send(Endpoint<User>(path: "flaky"))
        let seen = await finalEvents(stream, count: 1).map { event -> String in
            switch event {
            case .started(_, let method, let url, _): "started \(method) \(url)"
            case .attempt(_, let number): "attempt \(number)"
            case .redirected(_, let status, let url): "redirected \(status) \(url)"
            case .retrying(_, let attempt, let delay, let reason): "retrying \(attempt) \(delay) \(reason)"
            case .finished(_, let status, let attempts, _): "finished \(status) \(attempts)"
            case .failed(_, let error, _, _): "failed \(error)"
            case .servedFromCache(_, _, let url, let status, _): "served from cache \(status) \(url)"
            case .shared(_, _, let url, _): "shared \(url)"
            case .circuitBreakerChanged(_, let origin, let from, let to): "breaker \(origin) \(from) \(to)"
            case .hedged(_, let after): "hedged \(after)"
            case .shed(_, let priority): "shed \(priority)"
            case .concurrencyLimitChanged(_, let origin, let limit): "limit \(origin) \(limit)"
            }
        }
        #expect(seen == ["started GET https://api.test/flaky", "attempt 1", "retrying 1 0.0 seconds status 500", "attempt 2", "finished 200 2"])
        await api.shutdown()
    }
}

extension RequestPipelineTests {
    @Test("a cancelled queued request frees its place")
    func aCancelledQueuedRequestFreesItsPlace() async throws {
        let transport = ScriptedTransport()
        transport.script("/hang", [.hang])
        let api = client(URL(string: "https://api.test")!, transport: transport) {
            $0.limits.maxConcurrentRequests = 1
            $0.limits.maxQueuedRequests = 1
        }
        // One at a time, so that `queued` is the one waiting (two tasks started together reach
        // the pipeline in either order).
        let running = Task { try await api.send(Endpoint<EmptyResponse>(path: "hang")) }
        await waitUntil { (try? await api.pipelineStats()).map { $0.inFlight == 1 } ?? false }
        let queued = Task { try await api.send(Endpoint<EmptyResponse>(path: "hang")) }
        await waitUntil { (try? await api.pipelineStats()).map { $0.queued == 1 } ?? false }
        queued.cancel()
        guard case .cancelled? = await failure(of: queued) else { Issue.record("queued call not cancelled"); return }
        #expect(try await api.pipelineStats().queued == 0)
        // The freed place takes a new request instead of refusing it.
        let next = Task { try await api.send(Endpoint<EmptyResponse>(path: "hang")) }
        await waitUntil { (try? await api.pipelineStats()).map { $0.queued == 1 } ?? false }
        #expect(try await api.pipelineStats().rejected == 0)
        running.cancel()
        next.cancel()
        await api.shutdown()
    }

    @Test("shutdown answers and stops running requests")
    func shutdownAnswersAndStopsRunningRequests() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/hang", [.hang])
        let api = client(URL(string: "https://api.test")!, transport: transport, clock: clock)
        let calls = (0..<3).map { _ in Task { try await api.send(Endpoint<EmptyResponse>(path: "hang")) } }
        await clock.waitForSleepers(3)                  // all three are inside the transport
        await api.shutdown()
        for call in calls {
            guard case .componentUnavailable("RequestPipeline")? = await failure(of: call) else {
                Issue.record("a running request was not answered componentUnavailable"); continue
            }
        }
        await waitUntil { clock.sleeperCount == 0 }     // their transport exchanges were cancelled
        #expect(clock.sleeperCount == 0)
    }
}

extension RequestPipelineTests {
    @Test("a worker whose request was cancelled is not given another one")
    func aWorkerWhoseRequestWasCancelledIsNotGivenAnotherOne() async throws {
        let transport = ScriptedTransport()
        transport.script("/hang", [.hang])
        transport.script("/ok", [.status(204)])
        let api = client(URL(string: "https://api.test")!, transport: transport) {
            $0.limits.maxConcurrentRequests = 1
        }
        // One worker runs one request at a time: cancel it mid-request, then ask for more.
        for _ in 0..<3 {
            let hanging = Task { try await api.data(for: Endpoint<EmptyResponse>(path: "hang")) }
            await waitUntil { (try? await api.pipelineStats().inFlight) == 1 }
            hanging.cancel()
            guard case .cancelled? = await failure(of: hanging) else { Issue.record("not cancelled"); return }
            #expect(try await api.data(for: Endpoint<EmptyResponse>(path: "ok")).status == 204)
            await waitUntil { (try? await api.pipelineStats().inFlight) == 0 }
        }
        #expect(transport.requests(to: "/ok").count == 3)
        await api.shutdown()
    }

    @Test("idle workers end at shutdown and later calls are unavailable")
    func idleWorkersEndAtShutdownAndLaterCallsAreUnavailable() async throws {
        let api = client(URL(string: "https://api.test")!, transport: InMemoryTransport(always: HTTPResponse(status: 204)))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<32 { group.addTask { _ = try? await api.data(for: Endpoint<EmptyResponse>(path: "x")) } }
        }
        await api.shutdown()
        let error = await #expect(throws: NetworkError.self) { try await api.data(for: Endpoint<EmptyResponse>(path: "x")) }
        guard case .componentUnavailable? = error else { Issue.record("got \(String(describing: error))"); return }
    }
}

extension RequestPipelineTests {
    @Test("one message per request while no request waits; finished messages start the waiting ones")
    func oneMessagePerRequest() async throws {
        let transport = InMemoryTransport(always: HTTPResponse(status: 200, body: Data(#"{"id":1,"name":"Ada"}"#.utf8)))
        let api = client(URL(string: "https://api.test")!, transport: transport) { $0.limits.maxConcurrentRequests = 1 }
        for _ in 0..<100 { _ = try await api.send(Endpoint<User>(path: "users/1")) }
        let sequential = try await api.pipelineStats()
        #expect(sequential.messagesHandled == 100 + 1)      // admit per request, and this ask
        #expect(sequential.inFlight == 0)

        // 50 at once through one slot: each that ends while others wait tells the pipeline, so
        // every one of them runs.
        let replies = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 { group.addTask { (try? await api.send(Endpoint<User>(path: "users/1"))) != nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(replies == 50)
        let after = try await api.pipelineStats()
        #expect(after.inFlight == 0 && after.queued == 0)
        #expect(after.admitted == 150)
        await api.shutdown()
    }
}

extension RequestPipelineTests {
    @Test("a request waiting for a slot is answered timeout at its deadline, not when a slot frees; it is never sent")
    func waitingRequestTimesOutAtItsDeadline() async throws {
        let transport = ScriptedTransport()
        transport.script("/hang", [.hang])
        let clock = ManualClock()
        let api = client(URL(string: "https://api.test")!, transport: transport, clock: clock) {
            $0.limits.maxConcurrentRequests = 1
        }
        let first = Task { try await api.send(Endpoint<EmptyResponse>(path: "hang")) }
        await waitUntil { transport.requests.count == 1 }
        let second = Task {
            try await api.send(Endpoint<EmptyResponse>(path: "hang", options: RequestOptions(deadline: .seconds(5))))
        }
        await waitUntil { (try? await api.pipelineStats().queued) == 1 }
        await clock.waitForSleepers(1)   // the pipeline's timer for the waiting request
        #expect(clock.pendingDelays == [.seconds(5)])
        clock.advance(by: .seconds(5))
        let error = await failure(of: second)
        guard case .timeout(.request, _)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(try await api.pipelineStats().queued == 0)
        #expect(transport.requests.count == 1)   // the waiting request never reached the transport
        first.cancel()
        _ = await failure(of: first)
        await api.shutdown()
    }
}
