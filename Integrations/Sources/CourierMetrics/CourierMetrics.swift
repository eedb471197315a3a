public import CoreMetrics
public import Courier
import Foundation
import Synchronization

/// Exports a client's activity as swift-metrics, from Courier's public event streams and
/// counters; every label has a bounded set of values (no paths, ids or free text).
///
/// Create it right after the client (its streams are subscribed here, so nothing published
/// later is missed), then run ``run(pollingEvery:)`` for the client's lifetime: it returns once
/// the client has shut down and every stream has ended.
///
/// ```swift
/// let metrics = CourierMetrics(client: client)           // MetricsSystem.factory by default
/// async let exported: Void = metrics.run()               // until client.shutdown()
/// ```
///
/// | metric | kind | dimensions | from |
/// |---|---|---|---|
/// | `courier_requests_total` | counter | `method`, `host`, `operation` (a call with an operation name), `status_class` (`2xx`…`5xx`, `error`) | `client.events()` |
/// | `courier_request_duration_seconds` | timer | `method`, `host`, `status_class` | `client.events()` |
/// | `courier_request_retries_total` | counter | `method`, `host` | `client.events()` |
/// | `courier_request_hedges_total` | counter | `method`, `host` | `client.events()` |
/// | `courier_request_errors_total` | counter | `method`, `host`, `error` (``errorKind(_:)``) | `client.events()` |
/// | `courier_requests_shared_total` | counter | `host` | `client.events()` (identical GraphQL queries sharing one request, without a cache) |
/// | `courier_requests_shed_total` | counter | `priority` (`interactive`, `default`, `background`) | `client.events()` |
/// | `courier_concurrency_limit` | gauge | `host` | `client.events()` (adaptive limit only) |
/// | `courier_circuit_breaker_changes_total` | counter | `to` (`closed`, `open`, `half_open`) | `client.events()` |
/// | `courier_cache_hits_total` | counter | `freshness` (`fresh`, `stale`, `stale_if_error`) | `client.cache.stats()`, polled |
/// | `courier_cache_misses_total` (coalesced calls included), `courier_cache_coalesced_total`, `courier_cache_revalidated_total` | counter | | polled |
/// | `courier_cache_entries`, `courier_cache_bytes` | gauge | | polled |
/// | `courier_offline_queue_depth` | gauge | | `client.offline.pendingCount`, on each offline event and polled |
/// | `courier_offline_items_total` | counter | `outcome` (`enqueued`, `delivered`, `retrying`, `dead_lettered`, `expired`, `conflict`, `removed`, `waiting_for_user`) | `client.offline.events()` |
/// | `courier_session_refreshes_total` | counter | `result` (`success`, `failure`) | `client.session.events()` |
/// | `courier_session_expired_total` | counter | | `client.session.events()` |
/// | `courier_supervisor_restarts_total`, `courier_supervisor_failures_total` | counter | `child` (a component's name) | `client.supervisionEvents()` |
/// | `courier_supervisor_gave_up_total` | counter | | `client.supervisionEvents()` |
///
/// Request metrics count what reaches the request pipeline: a fresh cache hit never does (it
/// counts in `courier_cache_hits_total`), and requests coalesced onto one fetch count once. The
/// cache's counters are not published as events, so they are polled (``pollStats()``) and
/// exported as the increase since the previous poll. `host` takes the first ``maxHosts`` hosts
/// seen, then `_other`; `method` the standard methods, then `_OTHER`. A call with a
/// ``RequestOptions/operationName`` (a generated OpenAPI client's `operationID`, set by
/// `CourierOpenAPI`) also has an `operation` label on its request metrics: the first 256
/// names seen, then `_other`.
public final class CourierMetrics: Sendable {
    /// The prefix of every metric's label. Default `courier`.
    public let prefix: String
    /// At most this many distinct `host` values; later hosts are labelled `_other`. Default 32.
    public let maxHosts: Int

    private let client: APIClient
    private let factory: any MetricsFactory
    private let streams: Streams
    private let state = Mutex(PollState())
    /// The metric objects made so far, made once per label and dimensions (all bounded).
    private let metrics = Mutex(Made())

    private struct Made {
        var counters: [MetricKey: Counter] = [:]
        var timers: [MetricKey: CoreMetrics.Timer] = [:]
        var gauges: [MetricKey: Gauge] = [:]
    }

    private struct MetricKey: Hashable {
        let name: String
        let dimensions: [String]
        init(name: String, dimensions: [(String, String)]) {
            self.name = name
            self.dimensions = dimensions.flatMap { [$0.0, $0.1] }
        }
    }

    /// Subscribed at init; each is iterated by one task of ``run(pollingEvery:)``, once.
    private struct Streams: Sendable {
        let requests: AsyncStream<RequestEvent>
        let offline: AsyncStream<OfflineEvent>
        let session: AsyncStream<TokenEvent>
        let supervision: AsyncStream<SupervisionEvent>
    }

    /// The last cache counters seen, to export increases.
    private struct PollState {
        var cache = CacheStats()
        var streamsTaken = false
    }

    /// Subscribes to `client`'s streams now; metrics go to `factory` (default: the one
    /// `MetricsSystem` was bootstrapped with), labelled `prefix_…`.
    public init(
        client: APIClient, factory: (any MetricsFactory)? = nil, prefix: String = "courier", maxHosts: Int = 32
    ) {
        self.client = client
        self.factory = factory ?? MetricsSystem.factory
        self.prefix = prefix
        self.maxHosts = max(0, maxHosts)
        streams = Streams(
            requests: client.events(), offline: client.offline.events(), session: client.session.events(),
            supervision: client.supervisionEvents())
    }

    /// Exports until the client has shut down: consumes its event streams, and polls its
    /// counters every `interval` (`nil`: never; call ``pollStats()`` yourself). A shut-down
    /// client has no counters left to read: what changed since the last poll is not exported
    /// unless you call ``pollStats()`` before ``Courier/APIClient/shutdown()``. Call it once; a
    /// second call returns at once.
    public func run(pollingEvery interval: Duration? = .seconds(10)) async {
        let first = state.withLock { state in
            defer { state.streamsTaken = true }
            return !state.streamsTaken
        }
        guard first else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.consume(self.streams.requests) }
            group.addTask { await self.consume(self.streams.offline) }
            group.addTask { await self.consume(self.streams.session) }
            group.addTask { await self.consume(self.streams.supervision) }
            if let interval {
                group.addTask {
                    while (try? await Task.sleep(for: interval)) != nil {
                        await self.pollStats()
                    }
                }
            }
            // The four consumers end when the client shuts down (its streams finish); the
            // polling loop only when cancelled.
            for _ in 0..<4 { await group.next() }
            group.cancelAll()
        }
    }

    /// Reads the cache's counters and the offline queue's depth once and exports them (counters
    /// as the increase since the previous poll). A client that has shut down exports nothing.
    public func pollStats() async {
        if let stats = try? await client.cache.stats() {
            record(cache: stats)
        }
        await recordQueueDepth()
    }

    // MARK: Streams

    private func consume(_ events: AsyncStream<RequestEvent>) async {
        var labels = RequestLabels(maxHosts: maxHosts)
        for await event in events {
            switch event {
            case .started(let id, let method, let url, let operation):
                labels.start(id, method: method, url: url, operation: operation)
            case .attempt, .redirected, .servedFromCache:
                // Cache hits are counted from the cache's own counters (`pollStats`).
                break
            case .retrying(let id, _, _, _):
                counter("request_retries_total", labels.peek(id).dimensions).increment()
            case .hedged(let id, _):
                counter("request_hedges_total", labels.peek(id).dimensions).increment()
            case .shared(_, _, let url, _):
                counter("requests_shared_total", [("host", labels.host(of: url))]).increment()
            case .shed(_, let priority):
                counter("requests_shed_total", [("priority", priority.description)]).increment()
            case .concurrencyLimitChanged(_, let origin, let limit):
                gauge("concurrency_limit", [("host", labels.host(of: origin))]).record(limit)
            case .circuitBreakerChanged(_, _, _, let to):
                // By state only: an origin is not a bounded label.
                let state = switch to {
                case .closed: "closed"
                case .open: "open"
                case .halfOpen: "half_open"
                }
                counter("circuit_breaker_changes_total", [("to", state)]).increment()
            case .finished(let id, let status, _, let duration):
                let request = labels.finish(id)
                record(request: request, statusClass: Self.statusClass(status), duration: duration)
            case .failed(let id, let error, _, let duration):
                let request = labels.finish(id)
                record(request: request, statusClass: error.statusCode.map(Self.statusClass) ?? "error", duration: duration)
                counter("request_errors_total", request.dimensions + [("error", Self.errorKind(error))]).increment()
            }
        }
    }

    private func consume(_ events: AsyncStream<OfflineEvent>) async {
        for await event in events {
            let outcome: String? = switch event {
            case .enqueued: "enqueued"
            case .delivered: "delivered"
            case .retrying: "retrying"
            case .deadLettered: "dead_lettered"
            case .expired: "expired"
            case .conflict: "conflict"
            case .removed: "removed"
            case .waitingForUser: "waiting_for_user"
            case .conflictResolved, .recovered, .storageFailed: nil
            }
            if let outcome { counter("offline_items_total", [("outcome", outcome)]).increment() }
            await recordQueueDepth()
        }
    }

    private func consume(_ events: AsyncStream<TokenEvent>) async {
        for await event in events {
            switch event {
            case .refreshed: counter("session_refreshes_total", [("result", "success")]).increment()
            case .refreshFailed: counter("session_refreshes_total", [("result", "failure")]).increment()
            case .sessionExpired: counter("session_expired_total", []).increment()
            case .signedIn, .signedOut, .storageFailed: break
            }
        }
    }

    private func consume(_ events: AsyncStream<SupervisionEvent>) async {
        for await event in events {
            switch event {
            case .restarted(let child, _): counter("supervisor_restarts_total", [("child", child)]).increment()
            case .failed(let child, _): counter("supervisor_failures_total", [("child", child)]).increment()
            case .gaveUp: counter("supervisor_gave_up_total", []).increment()
            case .started, .exited, .stopped, .shutDown: break
            }
        }
    }

    // MARK: Recording

    private func record(request: RequestLabels.Request, statusClass: String, duration: Duration) {
        let dimensions = request.dimensions + [("status_class", statusClass)]
        counter("requests_total", dimensions).increment()
        let (seconds, attoseconds) = duration.components
        timer("request_duration_seconds", dimensions).recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    private func record(cache stats: CacheStats) {
        let previous = state.withLock { state in
            defer { state.cache = stats }
            return state.cache
        }
        // A restarted cache starts its counters again from zero: its whole count is new.
        func increase(_ now: Int, _ before: Int) -> Int64 { Int64(now >= before ? now - before : now) }
        let increases: [(String, [(String, String)], Int64)] = [
            ("cache_hits_total", [("freshness", "fresh")], increase(stats.hits, previous.hits)),
            ("cache_hits_total", [("freshness", "stale")], increase(stats.staleHits, previous.staleHits)),
            ("cache_hits_total", [("freshness", "stale_if_error")], increase(stats.staleOnError, previous.staleOnError)),
            ("cache_misses_total", [], increase(stats.misses, previous.misses)),
            ("cache_coalesced_total", [], increase(stats.coalesced, previous.coalesced)),
            ("cache_revalidated_total", [], increase(stats.revalidated, previous.revalidated)),
        ]
        for (name, dimensions, amount) in increases where amount > 0 {
            counter(name, dimensions).increment(by: amount)
        }
        gauge("cache_entries").record(stats.entries)
        gauge("cache_bytes").record(stats.bytes)
    }

    private func recordQueueDepth() async {
        // A client without an offline queue has no depth to export (the count throws).
        guard let depth = try? await client.offline.pendingCount else { return }
        gauge("offline_queue_depth").record(depth)
    }

    private func label(_ name: String) -> String { prefix.isEmpty ? name : "\(prefix)_\(name)" }

    private func counter(_ name: String, _ dimensions: [(String, String)]) -> Counter {
        let key = MetricKey(name: name, dimensions: dimensions)
        if let counter = metrics.withLock({ $0.counters[key] }) { return counter }
        let counter = Counter(label: label(name), dimensions: dimensions, factory: factory)
        return metrics.withLock { stored in
            if let existing = stored.counters[key] { return existing }   // made meanwhile by another caller
            stored.counters[key] = counter
            return counter
        }
    }

    private func timer(_ name: String, _ dimensions: [(String, String)]) -> CoreMetrics.Timer {
        let key = MetricKey(name: name, dimensions: dimensions)
        if let timer = metrics.withLock({ $0.timers[key] }) { return timer }
        let timer = CoreMetrics.Timer(label: label(name), dimensions: dimensions, preferredDisplayUnit: .seconds, factory: factory)
        return metrics.withLock { stored in
            if let existing = stored.timers[key] { return existing }   // made meanwhile by another caller
            stored.timers[key] = timer
            return timer
        }
    }

    private func gauge(_ name: String, _ dimensions: [(String, String)] = []) -> Gauge {
        let key = MetricKey(name: name, dimensions: dimensions)
        if let gauge = metrics.withLock({ $0.gauges[key] }) { return gauge }
        let gauge = Gauge(label: label(name), dimensions: dimensions, factory: factory)
        return metrics.withLock { stored in
            if let existing = stored.gauges[key] { return existing }   // made meanwhile by another caller
            stored.gauges[key] = gauge
            return gauge
        }
    }

    // MARK: Labels

    /// `2xx`, `3xx`, `4xx`, `5xx` (`1xx` and anything else odd: `error`).
    public static func statusClass(_ status: Int) -> String {
        (200..<600).contains(status) ? "\(status / 100)xx" : "error"
    }

    /// The kind of `error`, a bounded value for a label: `timeout`, `no_connection`,
    /// `http_status` (an error status, whose class `status_class` gives), `cancelled`, ….
    public static func errorKind(_ error: NetworkError) -> String {
        switch error {
        case .invalidURL: "invalid_url"
        case .invalidRequest: "invalid_request"
        case .invalidResponse: "invalid_response"
        case .malformedResponse: "malformed_response"
        case .noConnection: "no_connection"
        case .cannotConnect: "cannot_connect"
        case .connectionLost: "connection_lost"
        case .timeout: "timeout"
        case .unauthorized, .forbidden, .notFound, .conflict, .notModified, .serverError: "http_status"
        case .invalidToken: "invalid_token"
        case .tooManyRedirects: "too_many_redirects"
        case .decodingError: "decoding"
        case .encodingError: "encoding"
        case .securityError: "security"
        case .responseTooLarge: "response_too_large"
        case .notCached: "not_cached"
        case .queueFull: "queue_full"
        case .storageFailed: "storage"
        case .cancelled: "cancelled"
        case .overloaded: "overloaded"
        case .circuitOpen: "circuit_open"
        case .componentUnavailable: "unavailable"
        case .componentRestarted: "component_restarted"
        case .graphQL: "graphql"
        case .unknown: "unknown"
        }
    }
}
