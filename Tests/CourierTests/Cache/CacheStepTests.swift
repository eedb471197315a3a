import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A response served from storage is reported: a `servedFromCache` request event with its age,
/// and a `cache hit` log line at verbose detail. Nothing else reports it, since it never reaches
/// admission or the logging interceptor.
@Suite struct CacheStepTests {
    let item = #"{"id":7,"name":"Ivy"}"#
    let endpoint = Endpoint<User>(path: "items/7", query: ["access_token": "s3cret"], version: .v1)

    @Test("a fresh hit is a servedFromCache event with its age on the test clock, after the fetch's own events")
    func freshHitIsAnEvent() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", [.json(200, item, headers: ["Cache-Control": "max-age=600"])])
            let clock = ManualClock()
            let api = cachingClient(server, clock: clock)
            let stream = api.events()
            _ = try await api.send(endpoint)
            clock.advance(by: .seconds(42))
            #expect(try await api.send(endpoint).value.name == "Ivy")
            let seen = await events(stream) { if case .servedFromCache = $0 { true } else { false } }
            let url = server.baseURL.absoluteString + "/v1/items/7?access_token=%3Credacted%3E"
            guard case .servedFromCache(let id, let method, let hitURL, let status, let age) = seen.last else {
                Issue.record("no servedFromCache event: \(seen)")
                return
            }
            #expect((method, hitURL, status, age) == (.get, url, 200, .seconds(42)))
            // The fetch had its own id; the hit gets the next one.
            #expect(seen.first?.id == RequestID(1))
            #expect(id == RequestID(2))
            #expect(seen.filter { if case .finished = $0 { true } else { false } }.count == 1)
            #expect(seen.last?.description == "#2 served from cache: GET \(url), 200, age 42 s")
            #expect(try await server.requests(path: "/v1/items/7").count == 1)
            await api.shutdown()
        }
    }

    @Test("a cacheOnly hit and a stale-while-revalidate answer are reported; a fetched response is not")
    func otherHits() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", [.json(200, item, headers: ["Cache-Control": "max-age=10, stale-while-revalidate=600"])])
            let clock = ManualClock()
            let api = cachingClient(server, clock: clock)
            let stream = api.events()
            _ = try await api.send(endpoint)
            clock.advance(by: .seconds(5))
            var cacheOnly = endpoint
            cacheOnly.options.cachePolicy = .cacheOnly
            _ = try await api.send(cacheOnly)
            clock.advance(by: .seconds(25))   // 30 s old: stale, within the revalidation window
            _ = try await api.send(endpoint)
            var hits: [Duration] = []
            _ = await events(stream) { event in
                if case .servedFromCache(_, _, _, _, let age) = event { hits.append(age) }
                return hits.count == 2
            }
            #expect(hits == [.seconds(5), .seconds(30)])
            _ = try await server.waitForRequests(path: "/v1/items/7", count: 2)   // the revalidation
            await api.shutdown()
        }
    }

    @Test("at verbose detail a hit is a 'cache hit' log line (redacted URL, status, age); below verbose it is not logged")
    func hitIsLoggedAtVerbose() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", [.json(200, item, headers: ["Cache-Control": "max-age=600"])])
            for detail in [LogDetail.verbose, .standard] {
                let clock = ManualClock()
                let logger = CapturingLogger()
                let api = cachingClient(server, clock: clock) { $0.logging = .init(logger: logger, detail: detail) }
                _ = try await api.send(endpoint)
                clock.advance(by: .seconds(3))
                _ = try await api.send(endpoint)
                let hits = logger.lines("cache hit")
                if detail == .verbose {
                    #expect(hits == [CapturingLogger.Line(level: .info, message: "cache hit", metadata: [
                        "request": "#2", "method": "GET", "status": "200", "age": "3",
                        "url": server.baseURL.absoluteString + "/v1/items/7?access_token=%3Credacted%3E",
                    ])])
                } else {
                    #expect(hits.isEmpty)
                }
                #expect(logger.lines("request").count == 1)   // only the fetch went out
                #expect(!logger.allText.contains("s3cret"))
                await api.shutdown()
            }
        }
    }

    @Test("a stale response served because the network failed (stale-if-error) is reported as a hit, with its age")
    func staleOnErrorIsAHit() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", [.json(200, item, headers: ["Cache-Control": "max-age=10, stale-if-error=600"]), .status(503)])
            let clock = ManualClock()
            let api = cachingClient(server, clock: clock)
            let stream = api.events()
            _ = try await api.send(endpoint)
            clock.advance(by: .seconds(30))
            #expect(try await api.send(endpoint).value.name == "Ivy")
            let seen = await events(stream) { if case .servedFromCache = $0 { true } else { false } }
            guard case .servedFromCache(_, _, _, let status, let age) = seen.last else { Issue.record("no servedFromCache event: \(seen)"); return }
            #expect((status, age) == (200, .seconds(30)))
            #expect(try await server.requests(path: "/v1/items/7").count == 2)   // the failed fetch did go out
            await api.shutdown()
        }
    }

    @Test("cookies partition the cache: another user's cookie misses, clearing the cookies drops their entries, the same cookie hits")
    func cookiesPartitionTheCache() async throws {
        try await withScriptedServer { server in
            try await server.script("/login", [ScriptedResponse(status: 204, headerList: [["Set-Cookie", "sid=a; Path=/"]])])
            try await server.script("/v1/me", [.json(200, #"{"id":1,"name":"Ann"}"#, headers: ["Cache-Control": "max-age=600", "Vary": "Cookie"])])
            let api = cachingClient(server) { $0.cookies = .init() }
            let me = Endpoint<User>(path: "me", version: .v1)
            _ = try await api.send(Endpoint<EmptyResponse>(path: "login", method: .post))
            _ = try await api.send(me)
            _ = try await api.send(me)   // the same cookie: a hit
            #expect(try await server.requests(path: "/v1/me").map { $0.header("Cookie") } == ["sid=a"])

            try await api.cookies.set("sid=b; Path=/", from: server.baseURL)
            _ = try await api.send(me)   // another user's cookie: not the first one's entry
            try await api.cookies.clear()
            _ = try await api.send(me)   // no cookie at all: not a cookie-bearing entry either
            try await api.cookies.set("sid=a; Path=/", from: server.baseURL)
            _ = try await api.send(me)   // the clear dropped the first user's entry too
            #expect(try await server.requests(path: "/v1/me").map { $0.header("Cookie") } == ["sid=a", "sid=b", nil, "sid=a"])
            await api.shutdown()
        }
    }

    @Test("with a persistent tier, clearing the cookies drops their entries from the file too; shared entries stay")
    func cookieClearReachesTheFile() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withScriptedServer { server in
            try await server.script("/v1/me", [.json(200, #"{"id":1,"name":"Ann"}"#, headers: ["Cache-Control": "max-age=600"])])
            try await server.script("/v1/items/7", [.json(200, item, headers: ["Cache-Control": "max-age=600"])])
            let file = directory.appendingPathComponent("cache.sqlite")
            let api = cachingClient(server) {
                $0.caching = .init(storageFile: file)
                $0.cookies = .init()
            }
            _ = try await api.send(endpoint)   // no cookie yet: shared
            try await api.cookies.set("sid=a; Path=/v1/me", from: server.baseURL.appendingPathComponent("v1/me"))
            _ = try await api.send(Endpoint<User>(path: "me", version: .v1))
            try await api.cookies.clear()
            _ = try await api.cache.stats()   // the drop was handled
            await api.shutdown()
            let (disk, _) = try PersistentCache.open(path: file.path, maxBytes: 1 << 20)
            let base = server.baseURL.absoluteString
            let now = Date()
            #expect(try disk.entry(for: CacheKey(url: base + "/v1/items/7?access_token=s3cret", identity: ""), now: now) != nil)
            #expect(try disk.entry(for: CacheKey(url: base + "/v1/me", identity: CacheKey.identity("", cookie: "sid=a")), now: now) == nil)
        }
    }
}
