import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite(.timeLimit(.minutes(5))) struct PersistentCacheTests {
    let item = #"{"id":7,"name":"Ivy"}"#

    @Test("entries round-trip through the database, least recently used dropped past the byte limit")
    func boundedByBytes() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (disk, movedAside) = try PersistentCache.open(path: directory.appendingPathComponent("cache.sqlite").path, maxBytes: 20_000)
        #expect(movedAside == nil)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var entry = storedEntry(body: 1000, at: now)
        entry.response.headers = ["ETag": "\"v1\"", "Content-Type": "application/json"]
        entry.varying = ["accept-language": "es"]
        for index in 0..<100 {
            try disk.store(entry, for: CacheKey(url: "https://api.example.com/items/\(index)", identity: ""), now: now.addingTimeInterval(Double(index)))
            #expect(try disk.bytes() <= 20_000)
        }
        let kept = try #require(try disk.entry(for: CacheKey(url: "https://api.example.com/items/99", identity: ""), now: now))
        #expect(kept.response.headers["ETag"] == "\"v1\"")
        #expect(kept.varying == ["accept-language": "es"])
        #expect(kept.response.body.count == 1000)
        #expect(kept.storedAt == now)
        #expect(try disk.entry(for: CacheKey(url: "https://api.example.com/items/0", identity: ""), now: now) == nil)
        try disk.remove(url: "https://api.example.com/items", below: true)
        #expect(try disk.bytes() == 0)
    }

    @Test("networkFirst serves the last good response after a restart of the process while offline")
    func survivesARestartOffline() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cache.sqlite")
        let networkFirst = Endpoint<User>(path: "items/7", version: .v1, options: RequestOptions(cachePolicy: .networkFirst))
        var baseURL: URL?
        try await withScriptedServer { server in
            baseURL = server.baseURL
            try await server.script("/v1/items/7", [.json(200, item, headers: ["Cache-Control": "max-age=5"])])
            let first = cachingClient(server) { $0.caching?.storageFile = file }
            #expect(try await first.send(networkFirst).value.name == "Ivy")
            await first.shutdown()
            server.stopAndWait()   // gone for sure before the next request
        }
        // A new client (a new process, as far as the cache knows), the server gone.
        let second = client(baseURL!, retryPolicy: .never) { $0.caching = .init(storageFile: file) }
        #expect(try await second.send(networkFirst).value.name == "Ivy")
        #expect(try await second.cache.stats().staleOnError == 1)
        await second.shutdown()
    }

    @Test("a corrupt database file is moved aside with an event, and a fresh one works")
    func corruptDatabase() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cache.sqlite")
        try Data(repeating: 0x5A, count: 8192).write(to: file)
        try await withScriptedServer { server in
            try await server.script("/v1/items/7", [.json(200, item)])
            let api = cachingClient(server) { $0.caching?.storageFile = file }
            let events = api.cache.events()
            _ = try await api.send(Endpoint<User>(path: "items/7", version: .v1))
            var movedTo: String?
            for await event in events {
                if case .storageReset(let path) = event { movedTo = path; break }
            }
            let aside = try #require(movedTo)
            #expect(aside.hasPrefix(file.path + ".corrupt-"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: aside)) == Data(repeating: 0x5A, count: 8192))
            _ = try await api.send(Endpoint<User>(path: "items/7", version: .v1))
            #expect(try await server.requests(path: "/v1/items/7").count == 1)
            await api.shutdown()
            let (disk, _) = try PersistentCache.open(path: file.path, maxBytes: 1 << 20)
            #expect(try disk.bytes() > 0)
        }
    }
}
