import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A client of `server` with a cache, on `clock`.
func cachingClient(_ server: ScriptedServer, clock: any TimeSource = SystemTimeSource(), configure: (inout APIClient.Configuration) -> Void = { _ in }) -> APIClient {
    client(server.baseURL, retryPolicy: .never, clock: clock) {
        $0.caching = .init()
        $0.limits = .init(maxConcurrentRequests: 64, maxQueuedRequests: 2048)
        configure(&$0)
    }
}

/// Serialized: the coalescing tests hold a thousand requests each.
@Suite(.serialized, .timeLimit(.minutes(5))) struct CacheTests {
    let item = #"{"id":7,"name":"Ivy"}"#
    let endpoint = Endpoint<User>(path: "items/7", version: .v1)

    private func fetch(_ api: APIClient, _ endpoint: Endpoint<User>? = nil) async throws -> User {
        try await api.send(endpoint ?? self.endpoint).value
    }

    @Test("1000 concurrent identical GETs: the server sees one request and every caller gets the body")
    func coalescing() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", [.json(200, item).with(delay: 0.3)])
            let api = cachingClient(server)
            let users = try await withThrowingTaskGroup(of: User.self) { group in
                for _ in 0..<1000 { group.addTask { try await self.fetch(api) } }
                return try await group.reduce(into: [User]()) { $0.append($1) }
            }
            #expect(users.count == 1000)
            #expect(users.allSatisfy { $0.id == 7 })
            #expect(try await server.requests(path: "/v1/items/7").count == 1)
            let stats = try await api.cache.stats()
            #expect(stats.fetches == 1)
            // Every other caller joined the fetch, or came after it and found the body fresh.
            #expect(stats.coalesced + stats.hits == 999)
            await api.shutdown()
        }
    }

    @Test("999 of 1000 coalesced callers cancel: they get cancelled, the last still gets the body")
    func cancellingMostCallers() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", [.json(200, item).with(delay: 0.5)])
            let api = cachingClient(server)
            var tasks: [Task<User, any Error>] = []
            for _ in 0..<1000 { tasks.append(Task { try await self.fetch(api) }) }
            _ = try await server.waitForRequests(path: "/v1/items/7", count: 1)
            for task in tasks.dropLast() { task.cancel() }
            #expect(try await tasks.last!.value.id == 7)
            var cancelled = 0
            for task in tasks.dropLast() {
                do { _ = try await task.value } catch NetworkError.cancelled { cancelled += 1 } catch {}
            }
            #expect(cancelled >= 990)   // a few may have been answered before their cancellation landed
            #expect(try await server.requests(path: "/v1/items/7").count == 1)
            await api.shutdown()
        }
    }

    @Test("every coalesced caller cancels: the shared request is cancelled and the server sees it dropped")
    func cancellingEveryCaller() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", [.hold])
            let api = cachingClient(server)
            var tasks: [Task<User, any Error>] = []
            for _ in 0..<50 { tasks.append(Task { try await self.fetch(api) }) }
            _ = try await server.waitForRequests(path: "/v1/items/7", count: 1)
            for task in tasks { task.cancel() }
            for task in tasks { await #expect(throws: NetworkError.self) { _ = try await task.value } }
            #expect(try await server.waitForDisconnect(path: "/v1/items/7"))
            await api.shutdown()
        }
    }

    @Test("callers of a fetch that an invalidation made unjoinable still leave it: when all cancel, it is cancelled and the key's newer fetch goes on")
    func cancellingAfterAnInvalidation() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", method: "GET", [.hold, .hold])
            let api = cachingClient(server)
            var tasks: [Task<User, any Error>] = []
            for _ in 0..<10 { tasks.append(Task { try await self.fetch(api) }) }
            _ = try await server.waitForRequests(path: "/v1/items/7", count: 1)
            await waitUntil { (try? await api.cache.stats().coalesced) == 9 }   // all ten wait in the first fetch
            try api.cache.invalidate(endpoint)
            // A caller after the invalidation starts the fetch the key's requests now join.
            let later = Task { try await self.fetch(api) }
            _ = try await server.waitForRequests(path: "/v1/items/7", count: 2)
            for task in tasks { task.cancel() }
            for task in tasks { await #expect(throws: NetworkError.self) { _ = try await task.value } }
            #expect(try await server.waitForDisconnect(path: "/v1/items/7"))
            #expect(try await api.cache.stats().inFlight == 1)   // the later caller's fetch
            later.cancel()
            await api.shutdown()
        }
    }

    @Test("ETag round trip: the stale entry is revalidated with If-None-Match, the 304 gives the stored body")
    func etagRevalidation() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", [
                .json(200, item, headers: ["ETag": "\"v1\"", "Cache-Control": "no-cache"]),
                .status(304, headers: ["ETag": "\"v1\""]),
            ])
            let api = cachingClient(server)
            #expect(try await fetch(api).name == "Ivy")
            #expect(try await fetch(api).name == "Ivy")
            let sent = try await server.requests(path: "/v1/items/7")
            #expect(sent.count == 2)
            #expect(sent[0].header("If-None-Match") == nil)
            #expect(sent[1].header("If-None-Match") == "\"v1\"")
            #expect(try await api.cache.stats().revalidated == 1)
            await api.shutdown()
        }
    }

    @Test("no-store is never cached")
    func noStore() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", [.json(200, item, headers: ["Cache-Control": "no-store"])])
            let api = cachingClient(server)
            for _ in 0..<3 { _ = try await fetch(api) }
            #expect(try await server.requests(path: "/v1/items/7").count == 3)
            await api.shutdown()
        }
    }

    @Test("Vary: a stored response answers the same request, built by the client or by hand, and not one that differs in a varying header")
    func varyingHeaders() async throws {
        try await withScriptedServer { server in
            try await server.script(
                "/v1/items/7", [.json(200, item, headers: ["Cache-Control": "max-age=60", "Vary": "Accept, Accept-Language"])])
            let api = cachingClient(server)
            _ = try await fetch(api)   // stored, with the Accept the client adds
            let before = try await api.cache.stats().messagesHandled
            _ = try await fetch(api)   // a fresh hit from the shelf, looked up before the URL is parsed
            #expect(try await api.cache.stats().messagesHandled == before + 1)   // that read's own ask only
            _ = try await api.data(for: api.makeRequest(endpoint.untyped))   // the same request, built by hand
            #expect(try await server.requests(path: "/v1/items/7").count == 1)
            _ = try await fetch(api, Endpoint<User>(path: "items/7", headers: ["Accept-Language": "es"], version: .v1))
            #expect(try await server.requests(path: "/v1/items/7").count == 2)
            await api.shutdown()
        }
    }

    @Test("max-age beats the TTL, and a response without one expires with the TTL, on the test clock")
    func freshnessOnTheTestClock() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", [.json(200, item, headers: ["Cache-Control": "max-age=60"])])
            try await server.script("/v1/items/8", [.json(200, item)])
            let clock = ManualClock()
            let api = cachingClient(server, clock: clock) { $0.caching?.ttl = .custom(seconds: 5) }
            let other = Endpoint<User>(path: "items/8", version: .v1)
            _ = try await fetch(api)
            _ = try await fetch(api, other)
            clock.advance(by: .seconds(30))
            _ = try await fetch(api)   // max-age 60 > 30: fresh though the TTL is 5 s
            _ = try await fetch(api, other)   // TTL 5 s < 30: fetched again
            #expect(try await server.requests(path: "/v1/items/7").count == 1)
            #expect(try await server.requests(path: "/v1/items/8").count == 2)
            clock.advance(by: .seconds(31))
            _ = try await fetch(api)
            #expect(try await server.requests(path: "/v1/items/7").count == 2)
            await api.shutdown()
        }
    }

    @Test("stale-if-error: with the server gone, the stale body is served")
    func staleIfErrorWithTheServerDown() async throws {
        let clock = ManualClock()
        var api: APIClient?
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", [.json(200, item, headers: ["Cache-Control": "max-age=1, stale-if-error=600"])])
            api = cachingClient(server, clock: clock)
            _ = try await fetch(api!)
            server.stopAndWait()   // gone for sure before the next request
        }
        clock.advance(by: .seconds(10))
        #expect(try await fetch(api!).name == "Ivy")
        #expect(try await api!.cache.stats().staleOnError == 1)
        // Past the stale-if-error window the failure comes through.
        clock.advance(by: .seconds(600))
        await #expect(throws: NetworkError.self) { _ = try await fetch(api!) }
        await api!.shutdown()
    }

    @Test("max-age=0, stale-if-error=60 without a validator: kept, served with the server switched off, the error past 60 s")
    func staleIfErrorWithoutValidator() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", [.json(200, item, headers: ["Cache-Control": "max-age=0, stale-if-error=60"])])
            let clock = ManualClock()
            let api = client(try await server.switchableURL(), retryPolicy: .never, clock: clock) { $0.caching = .init() }
            #expect(try await fetch(api).name == "Ivy")
            #expect(try await api.cache.stats().entries == 1)
            try await server.setSwitchable(up: false)
            clock.advance(by: .seconds(30))
            try api.cache.clearExpired()   // within its window: kept
            #expect(try await fetch(api).name == "Ivy")
            #expect(try await api.cache.stats().staleOnError == 1)
            clock.advance(by: .seconds(30))   // 60 s old: past the window
            await #expect {
                _ = try await fetch(api)
            } throws: { error in
                if case NetworkError.cannotConnect(_, _, .refused, _) = error { true } else { false }
            }
            #expect(try await api.cache.stats().staleOnError == 1)
            try api.cache.clearExpired()
            #expect(try await api.cache.stats().entries == 0)
            #expect(try await server.requests(path: "/v1/items/7").count == 1)   // the others never reached it
            await api.shutdown()
        }
    }

    @Test("max-age=0, stale-while-revalidate=60 without a validator: served stale with a background refresh, fetched past 60 s")
    func staleWhileRevalidateWithoutValidator() async throws {
        try await withScriptedServer { server in
            let headers = ["Cache-Control": "max-age=0, stale-while-revalidate=60"]
            try await server.script("/v1/items/7", [
                .json(200, #"{"id":7,"name":"v1"}"#, headers: headers), .json(200, #"{"id":7,"name":"v2"}"#, headers: headers),
            ])
            let clock = ManualClock()
            let api = cachingClient(server, clock: clock)
            #expect(try await fetch(api).name == "v1")
            clock.advance(by: .seconds(10))
            #expect(try await fetch(api).name == "v1")   // stale, at once; the refresh runs behind it
            _ = try await server.waitForRequests(path: "/v1/items/7", count: 2)
            await waitUntil { (try? await api.cache.stats().inFlight) == 0 }
            #expect(try await fetch(api).name == "v2")   // the refreshed entry, itself stale: one more refresh
            await waitUntil { (try? await api.cache.stats().inFlight) == 0 }
            #expect(try await api.cache.stats().staleHits == 2)
            #expect(try await server.requests(path: "/v1/items/7").count == 3)
            clock.advance(by: .seconds(60))   // past the window: the caller waits for the network
            #expect(try await fetch(api).name == "v2")
            let stats = try await api.cache.stats()
            #expect(stats.staleHits == 2 && stats.misses == 2)
            #expect(try await server.requests(path: "/v1/items/7").count == 4)
            await api.shutdown()
        }
    }

    @Test("networkFirst reads from the network and falls back to any stored body offline; cacheOnly never asks the network")
    func policies() async throws {
        let clock = ManualClock()
        var api: APIClient?
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", [.json(200, item, headers: ["Cache-Control": "max-age=1"])])
            api = cachingClient(server, clock: clock)
            let networkFirst = Endpoint<User>(path: "items/7", version: .v1, options: RequestOptions(cachePolicy: .networkFirst))
            _ = try await fetch(api!, networkFirst)
            _ = try await fetch(api!, networkFirst)
            #expect(try await server.requests(path: "/v1/items/7").count == 2)
            server.stopAndWait()   // gone for sure before the next request
        }
        clock.advance(by: .seconds(3600))
        let offline = Endpoint<User>(path: "items/7", version: .v1, options: RequestOptions(cachePolicy: .networkFirst))
        #expect(try await fetch(api!, offline).name == "Ivy")
        let cacheOnly = Endpoint<User>(path: "items/7", version: .v1, options: RequestOptions(cachePolicy: .cacheOnly))
        #expect(try await fetch(api!, cacheOnly).name == "Ivy")
        let missing = Endpoint<User>(path: "items/9", version: .v1, options: RequestOptions(cachePolicy: .cacheOnly))
        await #expect {
            _ = try await fetch(api!, missing)
        } throws: { error in
            if case NetworkError.notCached = error { true } else { false }
        }
        await api!.shutdown()
    }

    @Test("a successful POST to a URL invalidates its cached GET")
    func unsafeMethodInvalidates() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", method: "GET", [.json(200, item)])
            try await server.script("/v1/items/7", method: "POST", [.json(200, item)])
            let api = cachingClient(server)
            _ = try await fetch(api)
            _ = try await fetch(api)
            _ = try await api.send(Endpoint<User>(path: "items/7", method: .post, version: .v1))
            _ = try await fetch(api)
            #expect(try await server.requests(path: "/v1/items/7").filter { $0.method == "GET" }.count == 2)
            await api.shutdown()
        }
    }

    @Test("one user's cached response is never served to another; signing out drops it")
    func identityIsolation() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/me", [.json(200, #"{"id":1,"name":"Ann"}"#).when(header: "Authorization", is: "Bearer ann", otherwise: .json(200, #"{"id":2,"name":"Bob"}"#))])
            let api = cachingClient(server) { $0.session = .init() }
            let me = Endpoint<User>(path: "me", version: .v1)
            try await api.session.signIn(Tokens(accessToken: "ann", refreshToken: nil, expiresAt: nil))
            #expect(try await fetch(api, me).name == "Ann")
            #expect(try await fetch(api, me).name == "Ann")
            #expect(try await server.requests(path: "/v1/me").count == 1)
            try await api.session.signOut()
            #expect(try await api.cache.stats().entries == 0)
            try await api.session.signIn(Tokens(accessToken: "bob", refreshToken: nil, expiresAt: nil))
            #expect(try await fetch(api, me).name == "Bob")
            #expect(try await server.requests(path: "/v1/me").count == 2)
            await api.shutdown()
        }
    }

    @Test("requests with credentials of unknown identity are not cached")
    func unknownIdentityIsNotCached() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", [.json(200, item)])
            let api = cachingClient(server) { $0.auth = AuthInterceptor { "tok" } }
            _ = try await fetch(api)
            _ = try await fetch(api)
            #expect(try await server.requests(path: "/v1/items/7").count == 2)
            await api.shutdown()
            // The same with the auth interceptor among the user's own interceptors.
            let listed = cachingClient(server) { $0.requestInterceptors = [AuthInterceptor { "tok" }] }
            _ = try await fetch(listed)
            _ = try await fetch(listed)
            #expect(try await server.requests(path: "/v1/items/7").count == 4)
            await listed.shutdown()
        }
    }

    @Test("the cache restarted by its supervisor under load: it comes back empty and no request fails")
    func restartUnderLoad() async throws {
        struct Broken: Error {}
        let file = try temporaryDirectory().appendingPathComponent("cache.sqlite")
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", [.json(200, item).with(delay: 0.1)])
            let failNext = Locked(false)
            let api = cachingClient(server) { configuration in
                // A persistent tier whose next step, once armed, fails as a broken disk does.
                configuration.caching?.storageFile = file
                configuration.caching?.storage = FaultyCacheStorage { _ in
                    failNext.withLock { fail in
                        defer { fail = false }
                        return fail ? Broken() : nil
                    }
                }
            }
            let supervision = api.supervisionEvents()
            async let load = withThrowingTaskGroup(of: User.self) { group in
                for _ in 0..<100 { group.addTask { try await self.fetch(api) } }
                return try await group.reduce(into: [User]()) { $0.append($1) }
            }
            _ = try await server.waitForRequests(path: "/v1/items/7", count: 1)
            failNext.withLock { $0 = true }
            // networkFirst always asks the cache, which reads or writes the tier for it: the
            // message that breaks the cache (its read, or the store of its answer), answered by the network.
            _ = try await fetch(api, Endpoint<User>(path: "items/7", version: .v1, options: RequestOptions(cachePolicy: .networkFirst)))
            let users = try await load
            #expect(users.count == 100)
            var restarted = false
            for await event in supervision {
                if case .restarted(child: "Cache", _) = event { restarted = true; break }
            }
            #expect(restarted)
            // The new instance works.
            _ = try await fetch(api)
            #expect(try await api.cache.stats().messagesHandled > 0)
            await api.shutdown()
        }
    }

    @Test("a 304 to the caller's own validators is the caller's, not a revalidation of what is stored")
    func callersOwnValidators() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", [
                .json(200, item, headers: ["ETag": "\"v1\"", "Cache-Control": "no-cache"]),
                .status(304, headers: ["ETag": "\"v0\""]),
            ])
            let api = cachingClient(server)
            _ = try await fetch(api)
            var conditional = endpoint
            conditional.headers = ["If-None-Match": "\"v0\""]
            let raw = try await api.data(for: conditional)
            #expect(raw.status == 304)
            #expect(try await server.requests(path: "/v1/items/7").last?.header("If-None-Match") == "\"v0\"")
            #expect(try await api.cache.stats().revalidated == 0)
            await api.shutdown()
        }
    }

    @Test("a write during a GET's fetch: the fetched answer is not stored, the next GET asks the server")
    func writeDuringAFetch() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", method: "GET", [.json(200, item).with(delay: 0.3)])
            try await server.script("/v1/items/7", method: "POST", [.json(200, item)])
            let api = cachingClient(server)
            async let before = fetch(api)
            _ = try await server.waitForRequests(path: "/v1/items/7", count: 1)
            _ = try await api.send(Endpoint<User>(path: "items/7", method: .post, version: .v1))
            _ = try await before
            _ = try await fetch(api)
            #expect(try await server.requests(path: "/v1/items/7").filter { $0.method == "GET" }.count == 2)
            await api.shutdown()
        }
    }
}
