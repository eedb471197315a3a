import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A client of `baseURL` with an offline queue in `directory` and connectivity from request
/// outcomes and the app only (no link watcher, no probe).
func offlineClient(
    _ baseURL: URL, directory: URL? = nil, clock: any TimeSource = ManualClock(), debounce: Duration = .zero,
    restarts: RestartPolicy = RestartPolicy(),
    configure: (inout APIClient.Configuration.Offline) -> Void = { _ in }
) -> APIClient {
    client(baseURL, retryPolicy: .never, clock: clock) {
        $0.restarts = restarts
        $0.connectivity = .init(debounce: debounce, watchesLink: false)
        var offline = APIClient.Configuration.Offline(
            storageFile: directory?.appendingPathComponent("offline.sqlite"), retryBackoff: .constant(.seconds(10)))
        configure(&offline)
        $0.offline = offline
    }
}

/// A note write (sent with `client.offline.send`, it may be queued).
func noteWrite(_ n: Int, method: HTTPMethod = .post, path: String = "notes") -> Endpoint<EmptyResponse> {
    Endpoint(path: path, method: method, body: ["n": n])
}

/// The item id a write was queued as.
func queuedID<Value>(_ call: () async throws(NetworkError) -> OfflineDelivery<Value>) async -> Int64? {
    do {
        let delivery = try await call()
        if case .queued(let id) = delivery { return id }
        Issue.record("expected queued, got sent")
        return nil
    } catch {
        Issue.record("expected queued, got \(error)")
        return nil
    }
}

func deliveredCount(_ events: [OfflineEvent]) -> Int {
    events.filter { if case .delivered = $0 { true } else { false } }.count
}

@Suite(.timeLimit(.minutes(5))) struct OfflineSyncTests {
    @Test("offline: 100 writes are queued; when connectivity returns the server receives all 100, in order, each with its key")
    func hundredWrites() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        let base = try await server.switchableURL(up: false)
        try await server.script("/notes", method: "POST", [.json(201, "{}")])
        let api = offlineClient(base, directory: try temporaryDirectory())
        // Offline as the app (or the OS link) says: a refused connection alone would not say it.
        try api.connectivity.report(.offline)
        _ = try await settledConnectivity(api)
        let events = api.offline.events()
        var ids: [Int64] = []
        for n in 0..<100 {
            let id = await queuedID { () throws(NetworkError) in try await api.offline.send(noteWrite(n)) }
            ids.append(try #require(id))
        }
        #expect(ids == Array(1...100))
        #expect(try api.connectivity.state == .offline)
        #expect(try await api.offline.pendingCount == 100)
        let keys = try await api.offline.items().map(\.idempotencyKey)

        try await server.setSwitchable(up: true)
        try api.connectivity.report(.online)
        let seen = await collect(events) { deliveredCount($0) == 100 }
        #expect(seen.filter { if case .enqueued = $0 { true } else { false } }.count == 100)

        let received = try await server.requests(path: "/notes")
        #expect(received.map(\.bodyText) == (0..<100).map { #"{"n":\#($0)}"# })
        #expect(received.map { $0.header("Idempotency-Key") ?? "" } == keys)
        #expect(Set(keys).count == 100)
        #expect(try await api.offline.items().isEmpty)
        #expect(try await api.offline.pendingCount == 0)
        await api.shutdown()
    }

    @Test("with no source to say online again, the periodic drain tries the head write, and its success brings the client online")
    func timerProbesWhileOffline() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        let base = try await server.switchableURL(up: false)
        try await server.script("/notes", method: "POST", [.json(201, "{}")])
        let clock = ManualClock()
        let api = offlineClient(base, clock: clock) { $0.drainInterval = .seconds(60) }
        try api.connectivity.report(.offline)
        _ = try await settledConnectivity(api)
        let events = api.offline.events()
        let id = try #require(await queuedID { () throws(NetworkError) in try await api.offline.send(noteWrite(1)) })
        #expect(try await settledConnectivity(api) == .offline)
        try await server.setSwitchable(up: true)
        await clock.waitForSleepers(1)   // the sync timer
        clock.advance(by: .seconds(60))
        let seen = await collect(events) { deliveredCount($0) == 1 }
        #expect(seen.last == .delivered(itemID: id, status: 201))
        #expect(try await settledConnectivity(api) == .online)
        await api.shutdown()
    }

    @Test("writes stored by an earlier run are replayed at the next start, without a new write")
    func storedWritesResume() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/notes", method: "POST", [.json(201, "{}")])
        let directory = try temporaryDirectory()
        let first = offlineClient(server.baseURL, directory: directory)
        try first.connectivity.report(.offline)
        _ = try await settledConnectivity(first)
        let ids = [try await first.offline.enqueue(noteWrite(1)), try await first.offline.enqueue(noteWrite(2))]
        await first.shutdown()
        #expect(try await server.requests(path: "/notes").isEmpty)

        let second = offlineClient(server.baseURL, directory: directory)
        let events = second.offline.events()
        let seen = await collect(events) { deliveredCount($0) == 2 }
        #expect(seen == ids.map { .delivered(itemID: $0, status: 201) })
        #expect(try await server.requests(path: "/notes").map(\.bodyText) == [#"{"n":1}"#, #"{"n":2}"#])
        await second.shutdown()
    }

    @Test("a queueable write carries its key on the live attempt; a request with its own Authorization is not queued")
    func liveKeyAndOwnAuthorization() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/notes", method: "POST", [.json(201, "{}")])
        let api = offlineClient(server.baseURL)
        _ = try await api.offline.send(noteWrite(1))
        #expect(try await server.requests(path: "/notes").first?.header("Idempotency-Key") != nil)
        var own = noteWrite(2)
        own.headers = ["Authorization": "Bearer mine"]
        // Sent live while offline, it fails as a plain write would: it is not queueable.
        let down = offlineClient(try await server.switchableURL(up: false))
        try down.connectivity.report(.offline)
        _ = try await settledConnectivity(down)
        let sendError = await #expect(throws: NetworkError.self) { try await down.offline.send(own) }
        guard case .cannotConnect(_, _, .refused, _)? = sendError else { Issue.record("got \(String(describing: sendError))"); return }
        #expect(try await down.offline.pendingCount == 0)
        await down.shutdown()
        let enqueueError = await #expect(throws: NetworkError.self) { try await api.offline.enqueue(own) }
        guard case .invalidRequest? = enqueueError else { Issue.record("got \(String(describing: enqueueError))"); return }
        await api.shutdown()
    }

    @Test("a write sent while online goes out at once; a GET is never queued")
    func onlineWritesAreSent() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/notes", [.json(201, "{}")])
        let api = offlineClient(server.baseURL)
        _ = try await api.offline.send(noteWrite(1))
        #expect(try await settledConnectivity(api) == .online)
        #expect(try api.connectivity.state == .online)
        let down = offlineClient(try await server.switchableURL(up: false))
        let error = await #expect(throws: NetworkError.self) { try await down.offline.send(Endpoint<EmptyResponse>(path: "notes")) }
        guard case .cannotConnect(_, _, .refused, _)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(try await down.offline.pendingCount == 0)
        await api.shutdown()
        await down.shutdown()
    }

    @Test("connectivity dropping mid-drain stops the drain; it resumes when connectivity returns, without duplicates")
    func stopsAndResumes() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/notes", [ScriptedResponse.json(201, "{}").with(delay: 0.2)])
        let api = offlineClient(server.baseURL, clock: SystemTimeSource())
        let events = api.offline.events()
        let progress = api.offline.progress()
        try api.connectivity.report(.offline)
        _ = try await settledConnectivity(api)
        for n in 0..<10 { _ = try await api.offline.enqueue(noteWrite(n)) }
        try api.connectivity.report(.online)
        let before = deliveredCount(await collect(events) { deliveredCount($0) == 3 })
        try api.connectivity.report(.offline)
        // Until the drain that was stopped has ended. The deliveries so far may span drains (one
        // started by the enqueues may run once the monitor is online, and be stopped by the
        // `offline` the coordinator learns late), so the ended drains must account for them all.
        let drains = await collect(progress) { seen in
            seen.last?.isFinished == true && seen.filter(\.isFinished).map(\.done).reduce(0, +) >= before
        }
        #expect(drains.filter(\.isFinished).map(\.done).reduce(0, +) < 10)
        #expect(try await api.offline.pendingCount > 0)

        // The replay the stop cut may still be in progress at the server, which answers this once
        // none is: the resumed drain then gets its remembered answer (a resend while it is in
        // progress is answered 409: keyInProgressAfterStop).
        _ = try await server.idempotencyKeys()
        try api.connectivity.report(.online)
        _ = await collect(events) { deliveredCount($0) == 10 - before }
        #expect(try await api.offline.pendingCount == 0)
        var keysByBody: [String: Set<String>] = [:]
        for request in try await server.requests(path: "/notes") {
            keysByBody[request.bodyText, default: []].insert(request.header("Idempotency-Key") ?? "")
        }
        #expect(keysByBody.count == 10 && keysByBody.values.allSatisfy { $0.count == 1 })
        await api.shutdown()
    }

    @Test("a replay cut by a stop and sent again while the server still processes it (409, key in progress) backs off and is delivered once, not parked as a conflict")
    func keyInProgressAfterStop() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        // The first send stays in progress at the server until the test releases it, so the resend
        // surely arrives while it is; the server forgets a key it could not answer, so the last
        // replay is served afresh.
        var first = ScriptedResponse.json(201, "{}")
        first.afterRelease = true
        try await server.script("/notes", [first, .json(201, "{}")])
        let clock = ManualClock()
        let api = offlineClient(server.baseURL, clock: clock)
        let events = api.offline.events()
        let progress = api.offline.progress()
        try api.connectivity.report(.offline)
        _ = try await settledConnectivity(api)
        let id = try await api.offline.enqueue(noteWrite(1))
        try api.connectivity.report(.online)
        _ = try await server.waitForRequests(path: "/notes", count: 1)
        try api.connectivity.report(.offline)   // the drain gives the replay up; the server goes on with it
        _ = await collect(progress) { $0.last?.isFinished == true && $0.last?.failed == 1 }

        try api.connectivity.report(.online)   // the resumed drain sends the same key again
        // Any outcome ends the wait, so a resend that arrived too late fails the test instead of
        // hanging it.
        let seen = await collect(events) { seen in
            seen.contains {
                switch $0 {
                case .retrying, .conflict, .delivered, .deadLettered: true
                default: false
                }
            }
        }
        try #require(seen.last == .retrying(itemID: id, attempt: 0, error: "409 while an earlier send of its key may still be in progress"))
        try await server.release(path: "/notes")   // the first send ends (its client is gone)
        _ = try await server.idempotencyKeys()   // answered once the first send is processed
        clock.advance(by: .seconds(10))
        _ = try await api.offline.sync()
        #expect(await collect(events) { !$0.isEmpty } == [.delivered(itemID: id, status: 201)])
        let received = try await server.requests(path: "/notes")
        #expect(received.count == 3)
        #expect(Set(received.map { $0.header("Idempotency-Key") ?? "" }).count == 1)
        #expect(try await server.idempotencyKeys().values.map(\.processed) == [1])
        #expect(try await api.offline.items().isEmpty)
        await api.shutdown()
    }

    @Test("a write that keeps failing is retried after its backoff, then kept as a dead letter")
    func deadLetter() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/notes", [.json(503, #"{"message":"busy"}"#)])
        let clock = ManualClock()
        let api = offlineClient(server.baseURL, clock: clock) { $0.maxAttempts = 3 }
        let events = api.offline.events()
        let id = try await api.offline.enqueue(noteWrite(1))
        for attempt in 1...3 {
            let progress = try await api.offline.sync()
            #expect(progress.failed == 1, "attempt \(attempt)")
            #expect(try await api.offline.sync().failed == 0)   // not due before its backoff
            clock.advance(by: .seconds(10))
        }
        let items = try await api.offline.items()
        #expect(items.map(\.state) == [.dead])
        #expect(items.first?.attempts == 3)
        #expect(try await server.requests(path: "/notes").count == 3)
        let seen = await collect(events) { $0.contains { if case .deadLettered = $0 { true } else { false } } }
        #expect(seen.contains { if case .retrying(id, 2, let error) = $0 { error.hasPrefix("serverError(503)") } else { false } })
        try await server.script("/notes", [.json(201, "{}")])
        try await api.offline.retry(id)   // queued again, and a drain is started
        _ = try await api.offline.sync()
        #expect(try await api.offline.items().isEmpty)
        await api.shutdown()
    }

    @Test("a replay answered 429 or 503 with Retry-After (seconds, then an HTTP date) is not sent again before that wait, though its backoff is shorter")
    func retryAfter() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        let clock = ManualClock()
        let start = clock.currentDate
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        try await server.script("/notes", [
            .json(429, #"{"message":"slow down"}"#, headers: ["Retry-After": "120"]),
            .json(503, #"{"message":"maintenance"}"#, headers: ["Retry-After": format.string(from: start.addingTimeInterval(420))]),
            .json(201, "{}"),
        ])
        let api = offlineClient(server.baseURL, clock: clock)   // backoff: 10 s
        let id = try await api.offline.enqueue(noteWrite(1))
        /// Syncs at `seconds` after the start; returns how many replays the server has seen.
        func sync(at seconds: Int) async throws -> Int {
            clock.advance(by: .seconds(seconds - Int(clock.currentDate.timeIntervalSince(start))))
            _ = try await api.offline.sync()
            return try await server.requests(path: "/notes").count
        }
        #expect(try await sync(at: 0) == 1)   // 429, Retry-After: 120
        let waiting = try #require(try await api.offline.items().first)
        #expect(waiting.id == id && waiting.state == .retrying && waiting.nextAttemptAt == start.addingTimeInterval(120))
        #expect(try await sync(at: 10) == 1)   // the backoff is over, Retry-After is not
        #expect(try await sync(at: 119) == 1)
        #expect(try await sync(at: 120) == 2)   // 503, Retry-After: the date 300 s later
        #expect(try await api.offline.items().first?.nextAttemptAt == start.addingTimeInterval(420))
        #expect(try await sync(at: 419) == 2)
        #expect(try await sync(at: 420) == 3)   // 201
        #expect(try await api.offline.items().isEmpty)
        let sent = try await server.requests(path: "/notes")
        #expect(Set(sent.compactMap { $0.header("Idempotency-Key") }).count == 1)
        await api.shutdown()
    }

    @Test("an expired write is kept and reported, not sent")
    func expired() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        let clock = ManualClock()
        let api = offlineClient(server.baseURL, clock: clock) { $0.expiry = .seconds(3600) }
        let id = try await api.offline.enqueue(noteWrite(1))
        clock.advance(by: .seconds(3600))
        _ = try await api.offline.sync()
        #expect(try await api.offline.items().map(\.state) == [.expired])
        #expect(try await server.requests(path: "/notes").isEmpty)
        try await api.offline.remove(id)
        #expect(try await api.offline.items().isEmpty)
        await api.shutdown()
    }

    @Test("a full queue refuses the write with queueFull")
    func queueFull() async throws {
        let api = offlineClient(URL(string: "http://127.0.0.1:9")!) { $0.maxItems = 2 }
        _ = try await api.offline.enqueue(noteWrite(1))
        _ = try await api.offline.enqueue(noteWrite(2))
        let error = await #expect(throws: NetworkError.self) { try await api.offline.enqueue(noteWrite(3)) }
        guard case .queueFull(2)? = error else { Issue.record("got \(String(describing: error))"); return }
        await api.shutdown()
    }

    @Test("conflict serverWins: the local write is dropped and reported")
    func serverWins() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/doc", [.json(409, #"{"title":"theirs"}"#, headers: ["ETag": "\"v2\""])])
        let api = offlineClient(server.baseURL) { $0.conflicts = .serverWins }
        let events = api.offline.events()
        let id = try await api.offline.enqueue(noteWrite(1, method: .put, path: "doc"))
        let progress = try await api.offline.sync()
        #expect(progress.done == 1)
        #expect(try await api.offline.items().isEmpty)
        #expect(try await server.requests(path: "/doc").count == 1)
        let seen = await collect(events) { $0.count == 2 }
        #expect(seen.last == .conflictResolved(itemID: id, resolution: "serverWins"))
        await api.shutdown()
    }

    @Test("conflict clientWins: replayed with If-Match set to the server's ETag, under a new key")
    func clientWins() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        let conflict = ScriptedResponse.json(412, #"{"title":"theirs"}"#, headers: ["ETag": "\"v2\""])
        try await server.script("/doc", [ScriptedResponse.json(200, "{}").when(header: "If-Match", is: "\"v2\"", otherwise: conflict)])
        let api = offlineClient(server.baseURL) { $0.conflicts = .clientWins }
        _ = try await api.offline.enqueue(noteWrite(1, method: .put, path: "doc"))
        let progress = try await api.offline.sync()
        #expect(progress.done == 1)
        let received = try await server.requests(path: "/doc")
        #expect(received.count == 2)
        #expect(received[1].header("If-Match") == "\"v2\"")
        #expect(received[1].bodyText == #"{"n":1}"#)
        let keys = received.compactMap { $0.header("Idempotency-Key") }
        #expect(keys.count == 2 && keys[1] == keys[0] + "~1")
        #expect(try await api.offline.items().isEmpty)
        await api.shutdown()
    }

    @Test("conflict merge: the merged body of the local and the server's versions is sent")
    func merge() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/doc", [.json(409, #"{"server":true}"#), .json(200, "{}")])
        let api = offlineClient(server.baseURL) {
            $0.conflicts = .merge { local, remote in
                Data((String(decoding: local, as: UTF8.self) + "+" + String(decoding: remote, as: UTF8.self)).utf8)
            }
        }
        _ = try await api.offline.enqueue(noteWrite(1, method: .put, path: "doc"))
        // (The enqueue may start a drain of its own; `sync` returns once every drain has ended.)
        _ = try await api.offline.sync()
        #expect(try await api.offline.items().isEmpty)
        let received = try await server.requests(path: "/doc")
        #expect(received.map(\.bodyText) == [#"{"n":1}"#, #"{"n":1}+{"server":true}"#])
        await api.shutdown()
    }

    @Test("conflict manual: parked with the server's answer, resolved later through the API")
    func manual() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/doc", [.json(409, #"{"server":true}"#, headers: ["ETag": "\"v3\""]), .json(200, "{}")])
        let api = offlineClient(server.baseURL) { $0.conflicts = .manual }
        let events = api.offline.events()
        let id = try await api.offline.enqueue(noteWrite(1, method: .put, path: "doc"))
        _ = try await api.offline.sync()
        let parked = try await api.offline.items()
        #expect(parked.map(\.state) == [.conflict])
        #expect(parked.first?.serverResponse?.body == Data(#"{"server":true}"#.utf8))
        let seen = await collect(events) { $0.count == 2 }
        #expect(seen.last == .conflict(itemID: id, status: 409))
        try await api.offline.resolveConflict(id, with: .merge(Data(#"{"n":1,"server":true}"#.utf8)))
        _ = try await api.offline.sync()   // (the resolution may start a drain of its own)
        let received = try await server.requests(path: "/doc")
        #expect(received.last?.bodyText == #"{"n":1,"server":true}"#)
        #expect(try await api.offline.items().isEmpty)
        await api.shutdown()
    }

    @Test("connectivity flapping 50 times within the debounce: one change, one drain, no duplicates")
    func flapping() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/notes", [.json(201, "{}")])
        let clock = ManualClock()
        let api = offlineClient(server.baseURL, clock: clock, debounce: .seconds(1))
        let changes = api.connectivity.events()
        let progress = api.offline.progress()
        try api.connectivity.report(.offline)
        for n in 0..<5 { _ = try await api.offline.enqueue(noteWrite(n)) }
        for flap in 0..<50 { try api.connectivity.report(flap.isMultiple(of: 2) ? .online : .offline) }
        try api.connectivity.report(.online)
        // Every report handled (the monitor answers in order) and the debounce timer armed (it
        // sleeps in a task of its own, beside the sync timer), then the debounce passes.
        _ = try await settledConnectivity(api)
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))
        let drains = await collect(progress) { $0.last?.isFinished == true }
        #expect(drains.last?.done == 5)
        #expect(await collect(changes) { $0.count == 2 }.map(\.state) == [.offline, .online])
        let received = try await server.requests(path: "/notes")
        #expect(received.count == 5)
        #expect(Set(received.compactMap { $0.header("Idempotency-Key") }).count == 5)
        // No second drain: a syncNow now finds nothing, and the server saw nothing more.
        #expect(try await api.offline.sync().total == 0)
        #expect(try await server.requests(path: "/notes").count == 5)
        await api.shutdown()
    }

    @Test("the queue and the coordinator restarted by the supervisor mid-drain: nothing lost, no duplicate without the same key")
    func restartsMidDrain() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/notes", [.json(201, "{}")])
        let settles = Locked(0)
        let claims = Locked(0)
        // Restarts wait on the system clock (a short backoff), and five are allowed.
        let restarts = RestartPolicy(maxRestarts: 5, period: .seconds(60), initialDelay: .milliseconds(1), maximumDelay: .milliseconds(10))
        let api = offlineClient(server.baseURL, directory: try temporaryDirectory(), clock: SystemTimeSource(), restarts: restarts) {
            $0.storage = FaultyOfflineStorage { step in
                // Every write of verdicts: deliveries' deletes, or any other's update.
                guard step == .write else { return nil }
                let count = settles.withLock { $0 += 1; return $0 }
                return count == 10 || count == 25 ? InjectedFailure(label: "queue") : nil
            }
            // The second claim: at the end of the first drain, when it asks for more.
            $0.drainQueue = { queue in
                FaultyDrainQueue(queue) {
                    claims.withLock { $0 += 1; return $0 } == 2 ? InjectedFailure(label: "coordinator") : nil
                }
            }
        }
        let supervision = api.supervisionEvents()
        // Offline while the writes are stored, so that no drain (and no injected restart) runs
        // under an enqueue: only the syncNow calls below drain. (Over the libcurl transport a
        // drain started by the first enqueues reached the tenth settle, and restarted the queue,
        // before the last enqueue was answered.)
        try api.connectivity.report(.offline)
        #expect(try await settledConnectivity(api) == .offline)
        for n in 0..<40 { _ = try await api.offline.enqueue(noteWrite(n)) }
        var rounds = 0
        while try await api.offline.pendingCount > 0, rounds < 20 {
            rounds += 1
            do { _ = try await api.offline.sync() } catch { continue }   // a restart may answer componentRestarted
        }
        #expect(settles.withLock { $0 } >= 25 && claims.withLock { $0 } >= 2)   // every fault happened
        // The failed claim failed its drain, and with it the coordinator.
        for await event in supervision {
            if case .restarted(child: "SyncCoordinator", _) = event { break }
        }
        #expect(try await api.offline.pendingCount == 0)
        #expect(try await api.offline.items().isEmpty)
        let received = try await server.requests(path: "/notes")
        var keysByBody: [String: Set<String>] = [:]
        for request in received { keysByBody[request.bodyText, default: []].insert(request.header("Idempotency-Key") ?? "") }
        #expect(keysByBody.count == 40)
        #expect(keysByBody.values.allSatisfy { $0.count == 1 })
        let records = try await server.idempotencyKeys()
        #expect(records.count == 40 && records.values.allSatisfy { $0.processed == 1 })
        await api.shutdown()
    }
}
