import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The normalized records kept in a SQLite file: they survive a restart (read lazily by a new
/// client on the same file), belong to one identity (another one's deletes them, on disk
/// too), and a corrupt file is moved aside with an event, never a crash.
@Suite struct GraphQLRecordPersistenceTests {
    /// A transport that fails every request: these clients answer from their records only.
    private static let offline = InMemoryTransport(always: HTTPResponse(status: 500, headers: [:], body: Data()))

    private func api(file: String) -> APIClient {
        client(URL(string: "https://api.test")!, transport: Self.offline) {
            $0.graphQL.normalizedCache = GraphQLNormalizedCacheConfiguration(file: file)
        }
    }

    private let luke = HeroNameQuery(variables: .init(id: "1"))

    private static func hero(_ id: String, _ name: String) -> [String: JSONValue] {
        ["hero": .object(["__typename": .string("Hero"), "id": .string(id), "name": .string(name)])]
    }

    private static let heroWithFriends: [String: JSONValue] = [
        "luke": .object([
            "__typename": .string("Hero"), "id": .string("1"), "title": .string("Luke"),
            "friends": .array([.object(["__typename": .string("Hero"), "id": .string("2"), "name": .string("Han")]), .null]),
        ])
    ]

    @Test("records survive a restart: a new client on the same file answers cacheOnly, references loaded lazily")
    func survivesRestart() async throws {
        let file = try temporaryDirectory().appendingPathComponent("records/graphql.sqlite").path
        let first = api(file: file)
        try first.graphQL.write(Self.heroWithFriends, for: HeroWithFriendsQuery())
        try first.graphQL.write(Self.hero("1", "Luke Skywalker"), for: luke)
        first.graphQL.evict(record: "Hero:2")
        try first.graphQL.write(Self.hero("2", "Han Solo"), for: HeroNameQuery(variables: .init(id: "2")))
        await first.graphQL.flushRecords()
        await first.shutdown()

        let second = api(file: file)
        // Nothing is loaded at start: the synchronous read sees memory only.
        #expect(throws: NetworkError.self) { try second.graphQL.read(luke) }
        let hero = try await second.graphQL.fetch(luke, cachePolicy: .cacheOnly).data()
        #expect(hero.hero?.name == "Luke Skywalker")
        let friends = try await second.graphQL.fetch(HeroWithFriendsQuery(), cachePolicy: .cacheOnly).data()
        #expect(friends.luke?.title == "Luke Skywalker")
        #expect(friends.luke?.friends.map { $0?.name } == ["Han Solo", nil])
        // Loaded now: the synchronous read answers too.
        #expect(try second.graphQL.read(luke).hero?.name == "Luke Skywalker")

        // A watcher on the new client sees a write, and the file keeps it.
        var watch = second.graphQL.watch(luke, cachePolicy: .cacheOnly).makeAsyncIterator()
        #expect(try await watch.next()?.data.hero?.name == "Luke Skywalker")
        try second.graphQL.write(Self.hero("1", "Luke S."), for: luke)
        #expect(try await watch.next()?.data.hero?.name == "Luke S.")
        await second.graphQL.flushRecords()
        await second.shutdown()
        let third = api(file: file)
        #expect(try await third.graphQL.fetch(luke, cachePolicy: .cacheOnly).data().hero?.name == "Luke S.")
        await third.shutdown()
    }

    @Test("evicted and cleared records are gone from the file too")
    func evictionsReachTheFile() async throws {
        let file = try temporaryDirectory().appendingPathComponent("graphql.sqlite").path
        let first = api(file: file)
        try first.graphQL.write(Self.hero("1", "Luke"), for: luke)
        try first.graphQL.write(Self.hero("2", "Han"), for: HeroNameQuery(variables: .init(id: "2")))
        first.graphQL.evict(record: "Hero:1")
        await first.graphQL.flushRecords()
        await first.shutdown()
        let second = api(file: file)
        await #expect(throws: NetworkError.self) { try await second.graphQL.fetch(luke, cachePolicy: .cacheOnly).data() }
        #expect(try await second.graphQL.fetch(HeroNameQuery(variables: .init(id: "2")), cachePolicy: .cacheOnly).data().hero?.name == "Han")
        second.graphQL.clearRecords()
        await second.graphQL.flushRecords()
        await second.shutdown()
        let third = api(file: file)
        await #expect(throws: NetworkError.self) {
            try await third.graphQL.fetch(HeroNameQuery(variables: .init(id: "2")), cachePolicy: .cacheOnly).data()
        }
        await third.shutdown()
    }

    @Test("another identity drops the records, on disk too; the same identity keeps them")
    func identityChangeDrops() async throws {
        let file = try temporaryDirectory().appendingPathComponent("graphql.sqlite").path
        let identity = Locked<String?>("alice")
        func cache() -> GraphQLNormalizedCache {
            GraphQLNormalizedCache(configuration: GraphQLNormalizedCacheConfiguration(file: file), identity: { .some(identity.withLock { $0 }) })
        }
        let first = cache()
        let access = try first.access(luke)
        first.write(Self.hero("1", "Alice's Luke"), access)
        await first.flush()

        // Alice again, in a new process: her records are there.
        let second = cache()
        guard case .success(let answer) = await second.readLoading(try second.access(luke)) else {
            Issue.record("alice's records are gone after a restart")
            return
        }
        #expect(answer.data == .object(["hero": .object(["id": .string("1"), "name": .string("Alice's Luke")])]))

        // Bob signs in: alice's records are dropped, in memory and in the file.
        identity.withLock { $0 = "bob" }
        guard case .failure = await second.readLoading(try second.access(luke)) else {
            Issue.record("bob reads alice's records")
            return
        }
        await second.flush()
        identity.withLock { $0 = "alice" }
        let third = cache()
        guard case .failure = await third.readLoading(try third.access(luke)) else {
            Issue.record("alice's records survived in the file after bob signed in")
            return
        }
    }

    @Test("a signed-in user's records survive a restart, read before the session has loaded its tokens; sign-out drops them")
    func sessionRestart() async throws {
        let file = try temporaryDirectory().appendingPathComponent("graphql.sqlite").path
        let tokens = InMemoryTokenPersistence()
        func api() -> APIClient {
            client(URL(string: "https://api.test")!, transport: Self.offline) {
                $0.graphQL.normalizedCache = GraphQLNormalizedCacheConfiguration(file: file)
                $0.session = .init(persistence: tokens)
            }
        }
        let first = api()
        try await first.session.signIn(Tokens(accessToken: "a", identity: "ada"))
        try first.graphQL.write(Self.hero("1", "Ada's Luke"), for: luke)
        await first.graphQL.flushRecords()
        await first.shutdown()

        // The first thing the new client does is a cached read: its tokens are not loaded yet.
        let second = api()
        #expect(try await second.graphQL.fetch(luke, cachePolicy: .cacheOnly).data().hero?.name == "Ada's Luke")
        try await second.session.signOut()
        await #expect(throws: NetworkError.self) { try await second.graphQL.fetch(luke, cachePolicy: .cacheOnly).data() }
        await second.graphQL.flushRecords()
        await second.shutdown()

        tokens.save(Tokens(accessToken: "a", identity: "ada"))
        let third = api()
        await #expect(throws: NetworkError.self) { try await third.graphQL.fetch(luke, cachePolicy: .cacheOnly).data() }
        await third.shutdown()
    }

    @Test("a corrupt file is moved aside with an event, and a fresh one works")
    func corruptFileRecovered() async throws {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("graphql.sqlite").path
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: file))
        let first = api(file: file)
        var events = first.graphQL.recordEvents().makeAsyncIterator()
        try first.graphQL.write(Self.hero("1", "Luke"), for: luke)
        await first.graphQL.flushRecords()
        let event = await events.next()
        guard case .storageReset(let movedTo)? = event else {
            Issue.record("expected storageReset, got \(String(describing: event))")
            return
        }
        #expect(movedTo.hasPrefix(file + ".corrupt-"))
        #expect(FileManager.default.fileExists(atPath: movedTo))
        #expect(try first.graphQL.read(luke).hero?.name == "Luke")
        await first.shutdown()
        let second = api(file: file)
        #expect(try await second.graphQL.fetch(luke, cachePolicy: .cacheOnly).data().hero?.name == "Luke")
        await second.shutdown()
    }
}
