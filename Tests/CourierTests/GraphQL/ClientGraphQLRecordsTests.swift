import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The normalized cache through `client.graphQL`, against hand-written responses: the cache
/// policies, merges of every result, watchers, and manual access. Requests are counted by the
/// transport that answers them.
@Suite struct ClientGraphQLRecordsTests {
    /// Answers each operation by its name with a canned body, and counts the requests.
    private final class Server: Sendable {
        let bodies: Locked<[String: String]>
        let requests = Locked<[String]>([])
        /// When given, each RenameHero waits for one element before it is answered.
        let gate: AsyncStream<Void>?

        init(_ bodies: [String: String], gate: AsyncStream<Void>? = nil) {
            self.bodies = Locked(bodies)
            self.gate = gate
        }

        var transport: InMemoryTransport {
            InMemoryTransport { request throws(NetworkError) in
                let body = (try? JSONSerialization.jsonObject(with: request.body ?? Data())) as? [String: Any]
                let name = body?["operationName"] as? String ?? ""
                self.requests.withLock { $0.append(name) }
                if name == "RenameHero", let gate = self.gate {
                    var opened = gate.makeAsyncIterator()
                    _ = await opened.next()
                }
                let answer = self.bodies.withLock { $0[name] } ?? #"{"errors":[{"message":"unknown operation"}]}"#
                return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(answer.utf8))
            }
        }

        var count: Int { requests.withLock { $0.count } }
    }

    private static let heroes = [
        "HeroName": #"{"data":{"hero":{"__typename":"Hero","id":"1","name":"Luke"}}}"#,
        "HeroWithFriends": #"{"data":{"luke":{"__typename":"Hero","id":"1","title":"Luke","friends":[{"__typename":"Hero","id":"2","name":"Han"},null]}}}"#,
        "RenameHero": #"{"data":{"renameHero":{"__typename":"Hero","id":"1","name":"Mark"}}}"#,
    ]

    private func api(_ server: Server, normalized: Bool = true) -> APIClient {
        client(URL(string: "https://api.test")!, transport: server.transport) {
            if normalized { $0.graphQL.normalizedCache = GraphQLNormalizedCacheConfiguration() }
        }
    }

    private let luke = HeroNameQuery(variables: .init(id: "1"))

    /// HeroName's `data` for hero `id` named `name`.
    private static func hero(_ id: String, _ name: String) -> [String: JSONValue] {
        ["hero": .object(["__typename": .string("Hero"), "id": .string(id), "name": .string(name)])]
    }

    @Test("cacheFirst: the network once, then the records; networkOnly and noCache always ask; cacheOnly never does")
    func cachePolicies() async throws {
        let server = Server(Self.heroes)
        let api = api(server)
        #expect(throws: NetworkError.self) { try api.graphQL.read(luke) }
        do {
            _ = try await api.graphQL.fetch(luke, cachePolicy: .cacheOnly).data()
            Issue.record("cacheOnly answered without records")
        } catch {
            guard case .notCached = error else { Issue.record("got \(error)"); return }
        }
        #expect(server.count == 0)

        var results = api.graphQL.fetch(luke, cachePolicy: .cacheFirst).makeAsyncIterator()
        let first = try await results.next()
        #expect(first?.source == .server)
        #expect(first?.data.hero?.name == "Luke")
        #expect(try await results.next() == nil)
        let second = try await api.graphQL.fetch(luke, cachePolicy: .cacheFirst).data()
        #expect(second.hero?.name == "Luke")
        #expect(server.count == 1)
        #expect(try await api.graphQL.fetch(luke, cachePolicy: .cacheOnly).data().hero?.name == "Luke")
        #expect(server.count == 1)

        _ = try await api.graphQL.fetch(luke, cachePolicy: .networkOnly).data()
        #expect(server.count == 2)
        // noCache: the server's new name is given, and not stored.
        server.bodies.withLock { $0["HeroName"] = #"{"data":{"hero":{"__typename":"Hero","id":"1","name":"Luke S."}}}"# }
        #expect(try await api.graphQL.fetch(luke, cachePolicy: .noCache).data().hero?.name == "Luke S.")
        #expect(try api.graphQL.read(luke).hero?.name == "Luke")
        #expect(server.count == 3)
        await api.shutdown()
    }

    @Test("cacheAndNetwork: the records' result, then the network's; only the network's on a miss")
    func cacheAndNetwork() async throws {
        let server = Server(Self.heroes)
        let api = api(server)
        var sources: [GraphQLCachedResult<HeroNameQuery.Data>.Source] = []
        for try await result in api.graphQL.fetch(luke, cachePolicy: .cacheAndNetwork) { sources.append(result.source) }
        #expect(sources == [.server])
        server.bodies.withLock { $0["HeroName"] = #"{"data":{"hero":{"__typename":"Hero","id":"1","name":"Luke S."}}}"# }
        var names: [String] = []
        sources = []
        for try await result in api.graphQL.fetch(luke, cachePolicy: .cacheAndNetwork) {
            sources.append(result.source)
            names.append(result.data.hero?.name ?? "")
        }
        #expect(sources == [.cache, .server])
        #expect(names == ["Luke", "Luke S."])
        #expect(try api.graphQL.read(luke).hero?.name == "Luke S.")
        #expect(server.count == 2)
        await api.shutdown()
    }

    @Test("one record answers two queries: aliases, a nested list, and a mutation's result that renames it for both")
    func oneRecordManyQueries() async throws {
        let server = Server(Self.heroes)
        let api = api(server)
        _ = try await api.graphQL.fetch(HeroWithFriendsQuery())
        // HeroName selects nothing HeroWithFriends did not store (under other aliases).
        #expect(try await api.graphQL.fetch(luke, cachePolicy: .cacheOnly).data().hero?.name == "Luke")
        // Han's record is there, but no query of hero(id: "2") stored its root field.
        #expect(throws: NetworkError.self) { try api.graphQL.read(HeroNameQuery(variables: .init(id: "2"))) }
        _ = try await api.graphQL.perform(RenameHero(variables: .init(id: "1", name: "Mark")))
        #expect(try api.graphQL.read(luke).hero?.name == "Mark")
        #expect(try api.graphQL.read(HeroWithFriendsQuery()).luke?.title == "Mark")
        #expect(try api.graphQL.read(HeroWithFriendsQuery()).luke?.friends.first??.name == "Han")
        #expect(server.count == 2)
        await api.shutdown()
    }

    @Test("a watcher: its first result, a new one per change of a field it read, none for an equal result or an unread field")
    func watcherEmitsOnChange() async throws {
        let server = Server(Self.heroes)
        let api = api(server)
        var watch = api.graphQL.watch(luke).makeAsyncIterator()
        let first = try await watch.next()
        #expect(first?.source == .server)
        #expect(first?.data.hero?.name == "Luke")

        // Equal data, then a field it did not read (a friend's name): nothing to give. Then a
        // mutation renames it: the next result is the new name, with no request.
        _ = try await api.graphQL.fetch(luke, cachePolicy: .networkOnly).data()
        try api.graphQL.write(Self.hero("2", "Solo"), for: HeroNameQuery(variables: .init(id: "2")))
        _ = try await api.graphQL.perform(RenameHero(variables: .init(id: "1", name: "Mark")))
        let renamed = try await watch.next()
        #expect(renamed?.data.hero?.name == "Mark")
        #expect(renamed?.source == .cache)
        #expect(server.count == 3)

        // A manual write of the same record reaches it too.
        try api.graphQL.write(Self.hero("1", "Skywalker"), for: luke)
        #expect(try await watch.next()?.data.hero?.name == "Skywalker")

        // Evicted, the watcher misses and waits; the field's return is its next result.
        api.graphQL.evict(record: "Hero:1", field: "name")
        #expect(throws: NetworkError.self) { try api.graphQL.read(luke) }
        try api.graphQL.write(Self.hero("1", "Luke"), for: luke)
        #expect(try await watch.next()?.data.hero?.name == "Luke")
        #expect(server.count == 3)
        await api.shutdown()
    }

    @Test("a watcher's task cancelled: the sequence ends, and the watcher is forgotten")
    func watcherStopsOnCancel() async throws {
        let server = Server(Self.heroes)
        let api = api(server)
        let (started, signal) = AsyncStream<Void>.makeStream()
        let task = Task { () throws(NetworkError) -> Int in
            var count = 0
            for try await _ in api.graphQL.watch(luke) {
                count += 1
                signal.yield()
            }
            return count
        }
        var iterator = started.makeAsyncIterator()
        await iterator.next()
        task.cancel()
        #expect(try await task.value == 1)
        // Nobody reads Hero:1 any more.
        let woken = api.graphQL.records!.write(
            Self.hero("1", "Mark"), try api.graphQL.records!.access(luke))
        #expect(woken.isEmpty)
        await api.shutdown()
    }

    @Test("without a normalized cache: watch says to turn it on; cacheFirst always asks the network")
    func withoutRecords() async throws {
        let server = Server(Self.heroes)
        let api = api(server, normalized: false)
        var watch = api.graphQL.watch(luke).makeAsyncIterator()
        do {
            _ = try await watch.next()
            Issue.record("watch ran without records")
        } catch {
            guard case .invalidRequest(let message) = error else { Issue.record("got \(error)"); return }
            #expect(message.contains("normalizedCache"))
        }
        _ = try await api.graphQL.fetch(luke, cachePolicy: .cacheFirst).data()
        _ = try await api.graphQL.fetch(luke, cachePolicy: .cacheFirst).data()
        #expect(server.count == 2)
        // Sent as written: no `__typename` added without records.
        let sent = server.requests.withLock { $0 }
        #expect(sent == ["HeroName", "HeroName"])
        await api.shutdown()
    }

    @Test("a mutation's update appends to a cached list; its watcher sees it; a throwing transaction writes nothing; clear empties")
    func manualAccess() async throws {
        let server = Server(Self.heroes)
        let api = api(server)
        var watch = api.graphQL.watch(HeroWithFriendsQuery()).makeAsyncIterator()
        #expect(try await watch.next()?.data.luke?.friends.count == 2)
        let leia: JSONValue = .object(["__typename": .string("Hero"), "id": .string("3"), "name": .string("Leia")])
        _ = try await api.graphQL.perform(RenameHero(variables: .init(id: "1", name: "Mark"))) { _, records throws(NetworkError) in
            try records.update(HeroWithFriendsQuery()) { data throws(NetworkError) in
                guard case .object(var luke) = data["luke"], case .array(var friends) = luke["friends"] else { throw .notCached }
                friends.append(leia)
                luke["friends"] = .array(friends)
                data["luke"] = .object(luke)
            }
        }
        // The rename and the appended friend: one result or two, the last shows both.
        var latest = try await watch.next()
        if latest?.data.luke?.friends.count != 3 { latest = try await watch.next() }
        #expect(latest?.data.luke?.title == "Mark")
        #expect(latest?.data.luke?.friends.map { $0?.name } == ["Han", nil, "Leia"])
        // Leia is a record of her own, which a query of her reads.
        try api.graphQL.withRecords { records throws(NetworkError) in
            try records.write(Self.hero("3", "Leia"), for: HeroNameQuery(variables: .init(id: "3")))
        }
        #expect(try api.graphQL.read(HeroNameQuery(variables: .init(id: "3"))).hero?.name == "Leia")

        // A transaction that throws writes nothing.
        #expect(throws: NetworkError.self) {
            try api.graphQL.withRecords { records throws(NetworkError) in
                try records.write(Self.hero("3", "Organa"), for: HeroNameQuery(variables: .init(id: "3")))
                #expect(try records.read(HeroNameQuery(variables: .init(id: "3"))).hero?.name == "Organa")
                throw .cancelled
            }
        }
        #expect(try api.graphQL.read(HeroNameQuery(variables: .init(id: "3"))).hero?.name == "Leia")
        api.graphQL.clearRecords()
        #expect(throws: NetworkError.self) { try api.graphQL.read(HeroWithFriendsQuery()) }
        #expect(server.count == 2)
        await api.shutdown()
    }

    @Test("an optimistic layer: watchers see it before the server answers; the answer replaces it; an error rolls it back")
    func optimisticLayer() async throws {
        let (gate, open) = AsyncStream<Void>.makeStream()
        let server = Server(Self.heroes, gate: gate)
        let api = api(server)
        var watch = api.graphQL.watch(luke).makeAsyncIterator()
        #expect(try await watch.next()?.data.hero?.name == "Luke")
        let saving = Self.renamed("Mark (saving)")
        let renaming = Task { () throws(NetworkError) in
            try await api.graphQL.perform(RenameHero(variables: .init(id: "1", name: "Mark")), optimisticResponse: saving)
        }
        // Held by the server: only the layer can say so.
        #expect(try await watch.next()?.data.hero?.name == "Mark (saving)")
        open.yield()
        #expect(try await renaming.value.renameHero?.name == "Mark")
        #expect(try await watch.next()?.data.hero?.name == "Mark")

        server.bodies.withLock { $0["RenameHero"] = #"{"data":null,"errors":[{"message":"the name was refused"}]}"# }
        let refused = Task { () throws(NetworkError) in
            try await api.graphQL.perform(RenameHero(variables: .init(id: "1", name: "Vader")), optimisticResponse: Self.renamed("Vader"))
        }
        #expect(try await watch.next()?.data.hero?.name == "Vader")
        open.yield()
        await #expect(throws: NetworkError.self) { try await refused.value }
        #expect(try await watch.next()?.data.hero?.name == "Mark")
        #expect(try api.graphQL.read(luke).hero?.name == "Mark")
        await api.shutdown()
    }

    @Test("a fragment reads and writes one record; a query of the record sees the write")
    func fragments() async throws {
        let server = Server(Self.heroes)
        let api = api(server)
        var watch = api.graphQL.watch(luke).makeAsyncIterator()
        #expect(try await watch.next()?.data.hero?.name == "Luke")
        #expect(try api.graphQL.read(HeroDetails.self, record: "Hero:1") == .init(id: "1", name: "Luke"))
        try api.graphQL.withRecords { records throws(NetworkError) in
            try records.write(["id": .string("1"), "name": .string("Mark")], fragment: HeroDetails.self, record: "Hero:1")
        }
        #expect(try await watch.next()?.data.hero?.name == "Mark")
        #expect(throws: NetworkError.self) { try api.graphQL.read(HeroDetails.self, record: "Hero:9") }
        #expect(server.count == 1)
        await api.shutdown()
    }

    @Test("records belong to the signed-in identity: sign-out drops them, and the next user does not see them")
    func recordsPerIdentity() async throws {
        let server = Server(Self.heroes)
        let api = client(URL(string: "https://api.test")!, transport: server.transport) {
            $0.graphQL.normalizedCache = GraphQLNormalizedCacheConfiguration()
            $0.session = .init(persistence: InMemoryTokenPersistence())
        }
        try await api.session.signIn(Tokens(accessToken: "a", identity: "ada"))
        var watch = api.graphQL.watch(luke).makeAsyncIterator()
        #expect(try await watch.next()?.data.hero?.name == "Luke")
        #expect(try api.graphQL.read(luke).hero?.name == "Luke")
        try await api.session.signOut()
        #expect(throws: NetworkError.self) { try api.graphQL.read(luke) }
        try await api.session.signIn(Tokens(accessToken: "b", identity: "bob"))
        #expect(throws: NetworkError.self) { try api.graphQL.read(luke) }
        // Bob's own fetch is stored for him.
        _ = try await api.graphQL.fetch(luke, cachePolicy: .cacheFirst).data()
        #expect(try api.graphQL.read(luke).hero?.name == "Luke")
        #expect(server.count == 2)
        await api.shutdown()
    }

    /// RenameHero's `data` for hero 1 named `name`.
    private static func renamed(_ name: String) -> [String: JSONValue] {
        ["renameHero": .object(["__typename": .string("Hero"), "id": .string("1"), "name": .string(name)])]
    }
}

/// One hero's record in a fragment's shape.
struct HeroDetails: GraphQLFragment {
    static let document = "fragment HeroDetails on Hero { id name }"
    struct Data: Decodable, Sendable, Equatable { let id: String; let name: String }
}
