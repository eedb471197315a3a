import Foundation

/// The response cache: stored GET responses under HTTP freshness rules, evicted least recently
/// used under a count and a byte limit, and one network fetch shared by identical concurrent
/// GETs.
///
/// A caller asks once (`get`) and is answered with the response: from storage when it is fresh
/// (one message, no pipeline admission), else from a fetch that the cache runs in a task of its
/// own (the mailbox loop never awaits it) and that every identical request waiting at the same
/// time shares. A caller that cancels leaves the fetch (`leave`); the fetch is cancelled only
/// when no caller is left. Its state is memory only: a restarted instance starts empty, and
/// requests waiting on the old one are answered `componentRestarted` by their replies (the
/// client then sends them past the cache).
actor Cache: Component {
    /// The messages the cache understands: its whole API.
    enum Message: Sendable {
        /// The answer to this GET, stored or fetched (ask).
        case get(CacheRequest, Reply<HTTPResponse>)
        /// The caller waiting as `waiter` gave up (tell).
        case leave(waiter: UInt64)
        /// Fetch `flight` ended (tell, from its task).
        case fetched(flight: UInt64, Result<HTTPResponse, NetworkError>)
        /// A write to `url` succeeded: forget its stored GETs, for every identity (tell).
        case invalidate(url: String)
        /// Forget every stored GET of the URL `prefix` or below it (`prefix/…`, `prefix?…`) (tell).
        case invalidatePrefix(String)
        /// Forget the entries stored for `identity` (a session that ended) (tell).
        case dropIdentity(String)
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
        /// Sends a request to the network (through the pipeline).
        let fetch: @Sendable (HTTPRequest, RequestOptions) async -> Result<HTTPResponse, NetworkError>
        let maxEntries: Int
        let maxBytes: Int
        /// Seconds of freshness of ``CacheTTL/defaultTTL``.
        let defaultTTL: Int
        let clock: any TimeSource
    }

    /// One shared network fetch and the callers waiting for it.
    private struct Flight {
        let id: UInt64
        let key: String
        let storageKey: String
        let request: HTTPRequest
        let ttl: CacheTTL
        let policy: CachePolicy
        /// What was stored when it started (revalidated by a 304, served if the network fails
        /// and the policy or the entry allow).
        let stale: CacheEntry?
        var waiters: [UInt64: Reply<HTTPResponse>]
        /// A background revalidation (stale-while-revalidate): nobody waits, nobody cancels it.
        let background: Bool
        var task: Task<Void, Never>?
    }

    private let environment: Environment
    private var storage: CacheStorage
    private var flights: [String: Flight] = [:]
    private var flightKeys: [UInt64: String] = [:]
    private var waiterFlights: [UInt64: String] = [:]
    private var lastFlight: UInt64 = 0
    /// The last identity that asked; entries of an earlier one are dropped when it changes.
    private var currentIdentity: String?
    private var stats = CacheStats()

    init(_ environment: Environment) {
        self.environment = environment
        storage = CacheStorage(maxEntries: environment.maxEntries, maxBytes: environment.maxBytes)
    }

    func handle(_ message: Message) {
        switch message {
        case .get(let request, let reply):
            get(request, reply)
        case .leave(let waiter):
            leave(waiter)
        case .fetched(let id, let result):
            finish(id, result)
        case .invalidate(let url):
            storage.removeAll { Self.url(ofKey: $0) == url }
        case .invalidatePrefix(let prefix):
            storage.removeAll { key in
                let url = Self.url(ofKey: key)
                return url == prefix || url.hasPrefix(prefix + "/") || url.hasPrefix(prefix + "?")
            }
        case .dropIdentity(let identity):
            storage.removeAll { Self.identity(ofKey: $0) == identity }
        case .clearExpired:
            let now = environment.clock.currentDate
            var expired: [String] = []
            for key in storage.keysByRecency {
                if let entry = storage.entry(for: key), !entry.isFresh(at: now), !entry.servableOnError(at: now) { expired.append(key) }
            }
            for key in expired { storage.remove(key) }
        case .clear:
            storage = CacheStorage(maxEntries: environment.maxEntries, maxBytes: environment.maxBytes)
        case .stats(let reply):
            var snapshot = stats
            snapshot.entries = storage.count
            snapshot.bytes = storage.bytes
            snapshot.inFlight = flights.count
            reply.succeed(snapshot)
        }
    }

    private func get(_ cached: CacheRequest, _ reply: Reply<HTTPResponse>) {
        if let identity = cached.identity, !identity.isEmpty, identity != currentIdentity {
            if let previous = currentIdentity { storage.removeAll { Self.identity(ofKey: $0) == previous } }
            currentIdentity = identity
        }
        let now = environment.clock.currentDate
        let storageKey = Self.key(cached.request, identity: cached.identity)
        var entry = cached.ttl == .noCache ? nil : storage.entry(for: storageKey)
        if let stored = entry, !stored.matches(cached.request) { entry = nil }
        switch cached.policy {
        case .cacheOnly:
            if let entry {
                stats.hits += 1
                reply.succeed(entry.response)
            } else {
                stats.misses += 1
                reply.fail(NetworkError.notCached)
            }
            return
        case .cacheFirst:
            if let entry, entry.isFresh(at: now) {
                stats.hits += 1
                reply.succeed(entry.response)
                return
            }
            if let entry, entry.servableWhileRevalidating(at: now) {
                stats.staleHits += 1
                reply.succeed(entry.response)
                join(cached, storageKey: storageKey, stale: entry, reply: nil)
                return
            }
        case .networkFirst, .networkOnly:
            break
        }
        stats.misses += 1
        join(cached, storageKey: storageKey, stale: cached.policy == .networkOnly ? nil : entry, reply: reply)
    }

    /// Adds the caller to the fetch of an identical request, or starts one; `reply` nil starts a
    /// background revalidation (unless one is running).
    private func join(_ cached: CacheRequest, storageKey: String, stale: CacheEntry?, reply: Reply<HTTPResponse>?) {
        let key = Self.flightKey(cached.request, storageKey: storageKey, policy: cached.policy)
        if var flight = flights[key] {
            if let reply {
                flight.waiters[cached.waiter] = reply
                waiterFlights[cached.waiter] = key
                flights[key] = flight
                stats.coalesced += 1
            }
            return
        }
        lastFlight += 1
        var sent = cached.request
        // Revalidate what is stored, unless the caller sent validators of its own.
        if let stale, !sent.headers.contains("If-None-Match"), !sent.headers.contains("If-Modified-Since") {
            for field in stale.validators { sent.headers.add(name: field.name, value: field.value) }
        }
        var flight = Flight(
            id: lastFlight, key: key, storageKey: storageKey, request: cached.request, ttl: cached.ttl, policy: cached.policy,
            stale: stale, waiters: [:], background: reply == nil)
        if let reply {
            flight.waiters[cached.waiter] = reply
            waiterFlights[cached.waiter] = key
        }
        let (fetch, mailbox, id, options) = (environment.fetch, environment.mailbox, lastFlight, cached.options)
        flight.task = Task.detached {
            let result = await fetch(sent, options)
            try? mailbox.send(.fetched(flight: id, result))
        }
        flights[key] = flight
        flightKeys[id] = key
        stats.fetches += 1
    }

    private func leave(_ waiter: UInt64) {
        guard let key = waiterFlights.removeValue(forKey: waiter), var flight = flights[key] else { return }
        flight.waiters[waiter] = nil
        if flight.waiters.isEmpty, !flight.background {
            // Every caller gave up: the fetch is cancelled (the server sees it dropped).
            flight.task?.cancel()
            flights[key] = nil
            flightKeys[flight.id] = nil
        } else {
            flights[key] = flight
        }
    }

    private func finish(_ id: UInt64, _ result: Result<HTTPResponse, NetworkError>) {
        guard let key = flightKeys.removeValue(forKey: id), let flight = flights.removeValue(forKey: key) else { return }
        for waiter in flight.waiters.keys { waiterFlights[waiter] = nil }
        let now = environment.clock.currentDate
        let answer: Result<HTTPResponse, NetworkError>
        switch result {
        case .success(let response) where response.status == 304 && flight.stale != nil:
            let entry = flight.stale!.revalidated(by: response, ttl: flight.ttl, defaultTTL: environment.defaultTTL, now: now)
            storage.store(entry, for: flight.storageKey)
            stats.revalidated += 1
            answer = .success(entry.response)
        case .success(let response):
            if let entry = CacheEntry.make(
                response: response, to: flight.request, ttl: flight.ttl, defaultTTL: environment.defaultTTL, now: now) {
                storage.store(entry, for: flight.storageKey)
            } else if response.status != 304 {
                storage.remove(flight.storageKey)
            }
            answer = .success(response)
        case .failure(let error):
            if let stale = flight.stale, Self.isNetworkFailure(error),
               flight.policy == .networkFirst || stale.servableOnError(at: now) {
                stats.staleOnError += 1
                answer = .success(stale.response)
            } else {
                answer = .failure(error)
            }
        }
        for reply in flight.waiters.values { reply.resume(with: answer.mapError { $0 }) }
    }

    /// Whether `error` says the network or the server failed (the cases stale-if-error and
    /// `networkFirst` cover), rather than the request being wrong or cancelled.
    static func isNetworkFailure(_ error: NetworkError) -> Bool {
        switch error {
        case .noConnection, .timeout: return true
        case .serverError(let response): return response.status >= 500
        default: return false
        }
    }

    // MARK: Keys

    /// `GET <url>` and the identity, separated by NUL (which no URL holds).
    static func key(_ request: HTTPRequest, identity: String?) -> String {
        "\(request.method.rawValue) \(request.url.absoluteString)\u{0}\(identity ?? "")"
    }

    /// The storage key and every request header field: identical requests share a fetch.
    private static func flightKey(_ request: HTTPRequest, storageKey: String, policy: CachePolicy) -> String {
        var key = storageKey + "\u{0}\(policy)"
        for field in request.headers { key += "\u{0}\(field.name.lowercased()):\(field.value)" }
        return key
    }

    static func url(ofKey key: String) -> Substring {
        let afterMethod = key.drop { $0 != " " }.dropFirst()
        return afterMethod.prefix { $0 != "\u{0}" }
    }

    static func identity(ofKey key: String) -> Substring {
        key.drop { $0 != "\u{0}" }.dropFirst()
    }
}
