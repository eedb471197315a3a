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
}
