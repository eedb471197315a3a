import Foundation

/// The response cache: stored GET responses under HTTP freshness rules, evicted least recently
/// used under a count and a byte limit, and one network fetch shared by identical concurrent
/// GETs.
///
/// A caller asks once (`get`) and is answered with the response: from storage when it is fresh
/// (one message, no pipeline admission), else from a fetch its first caller prepared in its own
/// task (``PreparedFetch``: the steps after the cache, carrying the caller's task-local values)
/// and the cache starts, with a reply that comes back to it as a `fetched` message (the
/// mailbox loop never awaits it, and no task waits in between), shared by every identical
/// request waiting at the same time. A caller that cancels leaves the fetch (`leave`); the fetch is cancelled only
/// when no caller is left. Its state is memory only: a restarted instance starts empty, and
/// requests waiting on the old one are answered `componentRestarted` by their replies (the
/// client then sends them past the cache).
///
/// With a persistent tier it runs on a thread of its own (``ThreadExecutor``), so that its SQLite
/// reads and writes never block the cooperative pool; without one, on the pool, as any actor.
/// A failure of the tier is published and the cache goes on in memory, except one that leaves
/// the tier untrustworthy (an I/O error, a damaged file: ``SQLiteDatabase/Failure/isUnusable``):
/// then the cache fails, and its next instance opens the tier again.
actor Cache: Component {
    /// The messages the cache understands: its whole API.
    enum Message: Sendable {
        /// The answer to this GET, stored or fetched (ask).
        case get(CacheRequest, Reply<HTTPResponse>)
        /// The caller that sent this request gave up waiting (tell).
        case leave(CacheRequest)
        /// Fetch `flight` of cache instance `instance` ended (tell, from the fetch's reply); a
        /// later instance ignores it. Its error is mapped to a ``NetworkError`` when the message
        /// is handled (a reply dropped unanswered is a runtime error).
        case fetched(instance: UInt64, flight: FlightNumber, Result<HTTPResponse, any Error>)
        /// A write to `url` succeeded: forget its stored GETs, for every identity (tell).
        case invalidate(url: String)
        /// Forget every stored GET of the URL `prefix` or below it (`prefix/…`, `prefix?…`) (tell).
        case invalidatePrefix(String)
        /// Forget the entries stored for `identity` (a session that ended), its cookie
        /// partitions included (tell).
        case dropIdentity(String)
        /// Forget the entries of requests that carried cookies (the cookies were cleared) (tell).
        case dropCookies
        /// Forget the entries that are no longer fresh (tell).
        case clearExpired
        /// Forget everything (tell).
        case clear
        /// The counters (ask).
        case stats(Reply<CacheStats>)
    }

    /// What every instance runs with.
    struct Environment: Sendable {
        let mailbox: Mailbox<Message>
        let maxEntries: Int
        let maxBytes: Int
        /// Seconds of freshness of ``CacheTTL/defaultTTL``.
        let defaultTTL: Int
        let clock: any TimeSource
        /// The persistent tier's database file and byte limit; `nil` keeps memory only.
        var persistence: (path: String, maxBytes: Int)? = nil
        /// Where the persistent tier is opened.
        var storage: any PersistentCacheStorage = SQLiteCacheStorage()
        var events = EventBroadcaster<CacheEvent>()
        /// The entries, shared with the client's hit path (see ``CacheShelf``).
        let shelf: Locked<CacheShelf>
    }

    /// A fetch's number within one cache instance.
    struct FlightNumber: Hashable, Sendable {
        let value: UInt64
    }

    /// One shared network fetch and the callers waiting for it.
    private struct Flight {
        /// The request that started it: its key, its headers (identical requests join it), its
        /// policy and freshness, and what its answer is stored for.
        let first: CacheRequest
        /// What was stored when it started, if anything.
        let stale: Stale?
        var waiters: Waiters
        /// A background revalidation (stale-while-revalidate): started for no caller (identical
        /// requests may still join it), and never cancelled by callers leaving.
        let background: Bool
        /// Whether its answer may be stored: not once the key was invalidated while it ran (the
        /// answer may predate the write).
        var storable = true
        /// The network request's task, to cancel it.
        let request: Task<Void, Never>

        var storageKey: CacheKey { first.key }
    }

    /// What was stored when a fetch started: revalidated by a 304, served if the network fails
    /// and the policy or the entry allow. Kept out of line (a class), since most fetches have
    /// none and a fetch's state is moved into and out of its table on every miss.
    private final class Stale: Sendable {
        let entry: CacheEntry
        /// Whether the cache sent the entry's validators (only then is a 304 about the entry).
        let revalidating: Bool

        init(entry: CacheEntry, revalidating: Bool) {
            self.entry = entry
            self.revalidating = revalidating
        }
    }

    /// The callers waiting for one fetch, each known by its request (compared by identity):
    /// the first inline (most fetches have one caller: no allocation), the coalesced ones after
    /// it in an array (a caller that leaves is found by a scan, on cancellation only).
    private struct Waiters {
        private var first: (caller: CacheRequest, reply: Reply<HTTPResponse>)?
        private var others: [(caller: CacheRequest, reply: Reply<HTTPResponse>)] = []

        var isEmpty: Bool { first == nil && others.isEmpty }

        mutating func add(_ caller: CacheRequest, _ reply: Reply<HTTPResponse>) {
            if first == nil { first = (caller, reply) } else { others.append((caller, reply)) }
        }

        func contains(_ caller: CacheRequest) -> Bool {
            first?.caller === caller || others.contains { $0.caller === caller }
        }

        mutating func remove(_ caller: CacheRequest) {
            if first?.caller === caller {
                first = nil
            } else if let index = others.firstIndex(where: { $0.caller === caller }) {
                others.remove(at: index)
            }
        }

        /// Answers every caller, the first first: a lone caller with `result` itself (moved), the
        /// others with copies.
        func answer(_ result: consuming Result<HTTPResponse, NetworkError>) {
            guard !others.isEmpty else {
                first?.reply.resume(with: result)
                return
            }
            first?.reply.resume(with: copy result)
            for other in others { other.reply.resume(with: copy result) }
        }
    }

    private let environment: Environment
    /// Where this instance runs: its own thread when it has a persistent tier (a restarted
    /// instance gets a new one, and this one's ends with it), else the pool.
    private let executor: Executor
    /// Fetches running, by number.
    private var flights: [FlightNumber: Flight] = [:]
    /// The fetch identical requests for a key may join (the first one started for it).
    private var joinable: [CacheKey: FlightNumber] = [:]
    private var lastFlight: UInt64 = 0
    /// This instance's identity: fetches started by a failed instance still answer into the same
    /// mailbox, and their flight numbers would collide with this instance's.
    private let instance = UInt64.random(in: .min ... .max)
    /// The last identity that asked; entries of an earlier one are dropped when it changes.
    private var currentIdentity: String?
    private var stats = CacheStats()
    /// The persistent tier, opened before the first message (so that a subscriber who asked
    /// nothing yet sees the event of a corrupt file); `nil` when off or when it failed.
    private var disk: (any PersistentCacheStore)?
    private var diskOpened = false

    init(_ environment: Environment) {
        self.environment = environment
        executor = environment.persistence == nil ? .pool(PoolExecutor()) : .thread(ThreadExecutor(name: "courier.cache"))
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        switch executor {
        case .thread(let thread): thread.asUnownedSerialExecutor()
        case .pool(let pool): pool.unownedExecutor
        }
    }

    /// Runs on the actor's executor, so that the persistent tier is closed on its thread.
    isolated deinit {}

    private enum Executor {
        case thread(ThreadExecutor)
        /// An actor of no state lending the cache its default executor (serial, on the pool):
        /// an actor cannot name its own default executor.
        case pool(PoolExecutor)
    }

    private actor PoolExecutor {}

    /// Runs `body` on the entries, under the shelf's lock.
    @discardableResult
    private func storage<T>(_ body: (inout CacheStorage<CacheKey>) throws -> T) rethrows -> T {
        try environment.shelf.withLock { try body(&$0.storage) }
    }

    func handle(_ message: consuming Message) throws {
        if !diskOpened {
            // A new instance starts empty (what a failed one left is not trusted).
            clear()
            openDisk()
        }
        stats.messagesHandled += 1
        // Read before the message is taken apart (moved, so a fetched response is not copied).
        let forgotten = message.forgottenKeys
        switch consume message {
        case .get(let request, let reply):
            try get(request, reply)
        case .leave(let cached):
            leave(cached)
        case .fetched(let instance, let id, let result):
            if instance == self.instance { try finish(id, result.mapError { NetworkError(answer: $0) }) }
        // The client already took these keys off the shelf (`Handle.forget`); here they leave
        // the fetches running for them and the persistent tier.
        case .invalidate(let url):
            unstore(forgotten)
            try onDisk { try $0.remove(url: url, below: false) }
        case .invalidatePrefix(let prefix):
            unstore(forgotten)
            try onDisk { try $0.remove(url: prefix, below: true) }
        case .dropIdentity(let identity):
            unstore(forgotten)
            try onDisk { try $0.remove(identity: identity) }
        case .dropCookies:
            unstore(forgotten)
            try onDisk { try $0.removeCookiePartitions() }
        case .clear:
            unstore(forgotten)
            try onDisk { try $0.removeAll() }
        case .clearExpired:
            let now = environment.clock.currentDate
            storage { $0.removeAll { _, entry in entry.isExpired(at: now) } }
        case .stats(let reply):
            var snapshot = stats
            environment.shelf.withLock { shelf in
                snapshot.entries = shelf.storage.count
                snapshot.bytes = shelf.storage.bytes
                snapshot.hits += shelf.freshHits
            }
            snapshot.inFlight = flights.count
            reply.succeed(snapshot)
        }
    }

    private func get(_ cached: CacheRequest, _ reply: Reply<HTTPResponse>) throws {
        // Cancelled before this message was handled (its `leave` may even have come first).
        guard !reply.isAnswered else { return }
        // A new session drops the last one's entries; cookie partitions within one do not.
        let identity = String(cached.key.session)
        if !identity.isEmpty, identity != currentIdentity {
            if let previous = currentIdentity {
                storage { $0.removeAll { key, _ in key.session == previous } }
                try onDisk { try $0.remove(identity: previous) }
            }
            currentIdentity = identity
        }
        let storageKey = cached.key
        var entry = cached.ttl == .noCache ? nil : storage { $0.entry(for: storageKey) }
        // The clock is read once, and only when something stored may be judged: a miss in memory
        // without a persistent tier reads none (then `now` is never used).
        let now = entry != nil || disk != nil ? environment.clock.currentDate : .distantPast
        if entry == nil, cached.ttl != .noCache, let stored = try onDisk({ try $0.entry(for: storageKey, now: now) }) ?? nil {
            storage { $0.store(stored, for: storageKey) }   // back in memory, most recently used
            entry = stored
        }
        if let stored = entry, !stored.matches(cached.headers) { entry = nil }
        switch cached.policy {
        case .cacheOnly:
            if let entry {
                stats.hits += 1
                reply.succeed(entry.served(at: now))
            } else {
                stats.misses += 1
                reply.fail(NetworkError.notCached)
            }
            return
        case .cacheFirst:
            if let entry, entry.isFresh(at: now) {
                stats.hits += 1
                reply.succeed(entry.served(at: now))
                return
            }
            if let entry, entry.servableWhileRevalidating(at: now) {
                stats.staleHits += 1
                // The revalidation starts (with the caller's prepared fetch) before the caller is
                // answered: answered, it drops what the cache did not start.
                join(cached, stale: entry, reply: nil)
                reply.succeed(entry.served(at: now))
                return
            }
        case .networkFirst, .networkOnly:
            break
        }
        stats.misses += 1
        join(cached, stale: cached.policy == .networkOnly ? nil : entry, reply: reply)
    }

    /// Adds the caller to the fetch of an identical request, or starts one; `reply` nil starts a
    /// background revalidation (unless one is running).
    private func join(_ cached: CacheRequest, stale: CacheEntry?, reply: Reply<HTTPResponse>?) {
        // Identical requests (same headers, same policy) share the fetch running for the key.
        let joinableID = joinable[cached.key]
        if let id = joinableID, let flight = flights[id], flight.first.policy == cached.policy,
           flight.first.headers == cached.headers {
            if let reply {
                flights[id]?.waiters.add(cached, reply)   // in place: no copy of the waiters
                stats.coalesced += 1
            }
            return
        }
        lastFlight += 1
        // Revalidate what is stored, unless the caller sent validators of its own.
        let validators = stale?.validators ?? []
        let headers = cached.request.headers
        let revalidating = !validators.isEmpty && !headers.contains("If-None-Match") && !headers.contains("If-Modified-Since")
        // The answer comes back as a message: no task waits for it. The response is moved on
        // (to the callers and the shelf), and a failure is mapped when the message is handled
        // (captured here, the mapping function was one more object every fetch shared).
        let (mailbox, id, instance) = (environment.mailbox, FlightNumber(value: lastFlight), instance)
        let answer = Reply<HTTPResponse> { result in
            try? mailbox.send(.fetched(instance: instance, flight: id, result))
        }
        var sent = cached.request
        if revalidating {
            for field in validators { sent.headers.add(name: field.name, value: field.value) }
        }
        let request = cached.fetch.start(sent, answer: answer)
        var waiters = Waiters()
        if let reply { waiters.add(cached, reply) }
        flights[id] = Flight(
            first: cached, stale: stale.map { Stale(entry: $0, revalidating: revalidating) }, waiters: waiters, background: reply == nil,
            request: request)
        if joinableID == nil { joinable[cached.key] = id }
        stats.fetches += 1
    }

    private func leave(_ cached: CacheRequest) {
        guard let id = flight(of: cached) else { return }
        flights[id]?.waiters.remove(cached)
        if let flight = flights[id], flight.waiters.isEmpty, !flight.background {
            // Every caller gave up: the fetch is cancelled (the server sees it dropped).
            flight.request.cancel()
            remove(id)
        }
    }

    /// The fetch `caller` waits for: usually the one identical requests for its key join; when
    /// the caller's fetch is not that one (an invalidation made it unjoinable, or the caller's
    /// headers or policy differ from the joinable one's), the running fetch for the key that
    /// holds it, found by a scan of every running fetch (on a cancellation only).
    private func flight(of caller: CacheRequest) -> FlightNumber? {
        if let id = joinable[caller.key], flights[id]?.waiters.contains(caller) == true { return id }
        return flights.first { $0.value.storageKey == caller.key && $0.value.waiters.contains(caller) }?.key
    }

    /// Forgets fetch `id` (and, if identical requests join it, that they do); returns it.
    @discardableResult
    private func remove(_ id: FlightNumber) -> Flight? {
        guard let flight = flights.removeValue(forKey: id) else { return nil }
        if let index = joinable.index(forKey: flight.storageKey), joinable.values[index] == id { joinable.remove(at: index) }
        return flight
    }

    private func finish(_ id: FlightNumber, _ result: consuming Result<HTTPResponse, NetworkError>) throws {
        guard let flight = remove(id) else { return }
        let now = environment.clock.currentDate
        let answer: Result<HTTPResponse, NetworkError>
        switch consume result {
        case .success(let response) where response.status == 304 && flight.stale?.revalidating == true:
            let entry = flight.stale!.entry.revalidated(by: response, ttl: flight.first.ttl, defaultTTL: environment.defaultTTL, now: now)
            answer = .success(entry.response)
            if flight.storable { try file(entry, under: flight.storageKey, now: now) }
            stats.revalidated += 1
        case .success(let response) where !flight.storable:
            answer = .success(response)
        case .success(let response):
            if let entry = CacheEntry.make(
                response: response, requestHeaders: flight.first.headers, ttl: flight.first.ttl, defaultTTL: environment.defaultTTL, now: now) {
                try file(entry, under: flight.storageKey, now: now)
            } else if response.status != 304 {
                storage { $0.remove(flight.storageKey) }
                try onDisk { try $0.remove(flight.storageKey) }
            }
            answer = .success(response)
        case .failure(let error):
            if let stale = flight.stale?.entry, Self.isNetworkFailure(error),
               flight.first.policy == .networkFirst || stale.servableOnError(at: now) {
                stats.staleOnError += 1
                answer = .success(stale.served(at: now))
            } else {
                answer = .failure(error)
            }
        }
        flight.waiters.answer(answer)
    }

    /// Files `entry` under `key`: on the shelf (moved in, not copied) and in the persistent tier.
    private func file(_ entry: consuming CacheEntry, under key: CacheKey, now: Date) throws {
        try onDisk { try $0.store(entry, for: key, now: now) }
        environment.shelf.withLock(passing: entry) { (shelf, entry: consuming CacheEntry) in _ = shelf.storage.store(entry, for: key) }
    }

    /// Fetches running for matching keys will not store their answers (which may predate what
    /// invalidated the key), and later requests do not join them.
    private func unstore(_ matches: ((CacheKey) -> Bool)?) {
        guard let matches else { return }
        for (id, flight) in flights where matches(flight.storageKey) {
            flights[id]?.storable = false
            if joinable[flight.storageKey] == id { joinable[flight.storageKey] = nil }
        }
    }

    /// Empties the entries.
    private func clear() {
        let empty = CacheStorage<CacheKey>(maxEntries: environment.maxEntries, maxBytes: environment.maxBytes)
        storage { $0 = empty }
    }

    /// Opens the persistent tier, if configured; a corrupt file is moved aside (an event says
    /// where), any other failure leaves the cache in memory only (an event says why).
    private func openDisk() {
        diskOpened = true
        guard let persistence = environment.persistence else { return }
        do {
            let (disk, movedAside) = try environment.storage.open(path: persistence.path, maxBytes: persistence.maxBytes)
            // A session's private entries do not outlive its process on disk (its identity, saved
            // with the tokens, may): earlier processes' are dropped.
            try disk.removePrivate()
            self.disk = disk
            if let movedAside { environment.events.publish(.storageReset(movedTo: movedAside)) }
        } catch {
            environment.events.publish(.storageFailed("could not open \(persistence.path): \(error)"))
        }
    }

    /// Runs `body` on the persistent tier, if there is one. A failure is published and the cache
    /// goes on (memory still answers): it is a cache, and nothing is lost that the network cannot
    /// give again. A failure that leaves the tier untrustworthy is thrown: the cache fails.
    /// Synchronous, in the handler, on the cache's own thread (never the pool's): a read or write
    /// of one row by its key takes tens of microseconds.
    @discardableResult
    private func onDisk<T>(_ body: (any PersistentCacheStore) throws -> T) throws -> T? {
        guard let disk else { return nil }
        do {
            return try body(disk)
        } catch let failure as SQLiteDatabase.Failure where failure.isUnusable {
            // Waiting callers, released with this instance, are answered `componentRestarted`.
            throw failure
        } catch {
            environment.events.publish(.storageFailed("\(error)"))
            return nil
        }
    }

    /// Whether `error` says the network or the server failed (the cases stale-if-error and
    /// `networkFirst` cover), rather than the request being wrong or cancelled. `unknown`
    /// counts: FoundationNetworking sometimes reports a refused connection as `URLError.unknown`.
    static func isNetworkFailure(_ error: NetworkError) -> Bool {
        switch error {
        case .noConnection, .cannotConnect, .connectionLost, .timeout, .malformedResponse, .unknown: return true
        case .serverError(let response): return response.status >= 500
        default: return false
        }
    }
}

extension Cache.Message {
    /// The keys a forgetting message (`invalidate`, `invalidatePrefix`, `dropIdentity`,
    /// `dropCookies`, `clear`)
    /// is about; `nil` for the others.
    var forgottenKeys: ((CacheKey) -> Bool)? {
        switch self {
        case .invalidate(let url): { $0.url == url }
        case .invalidatePrefix(let prefix): { $0.isAt(prefix) }
        case .dropIdentity(let identity): { $0.session == identity }
        case .dropCookies: { $0.hasCookies }
        case .clear: { _ in true }
        default: nil
        }
    }
}
