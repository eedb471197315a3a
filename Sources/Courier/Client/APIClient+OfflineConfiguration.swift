import Foundation

extension APIClient.Configuration {
    /// How the client learns whether it is online: the connectivity monitor's sources and debounce.
    public struct Connectivity: Sendable {
        /// A health URL probed actively. Default none (no probe): connectivity comes from the
        /// link state, the client's own requests, and the app.
        public var probeURL: URL?
        /// Time between probes while the health URL answers. Default 30 s.
        public var probeInterval: Duration
        /// Time before the probe after a failed one; doubled while it keeps failing, up to
        /// ``probeInterval``. Default 1 s.
        public var probeRetryDelay: Duration
        /// How long a probe may take. Default 5 s.
        public var probeTimeout: Duration
        /// How long a change must hold before it is published. Default 1 s.
        public var debounce: Duration
        /// Whether the OS's link state counts: netlink on Linux (ignored where the socket cannot
        /// be opened), `NWPathMonitor` on Apple platforms. Default `true`.
        public var watchesLink: Bool
        /// Whether the client's own requests count: the OS saying the device is offline
        /// (``NetworkError/noConnection(underlying:)``) says offline, a response says online; a
        /// server that cannot be reached says nothing. Default `true`.
        public var learnsFromRequests: Bool

        /// Creates connectivity settings; the defaults are no probe, 1 s debounce, link state and
        /// request outcomes on.
        public init(
            probeURL: URL? = nil, probeInterval: Duration = .seconds(30), probeRetryDelay: Duration = .seconds(1),
            probeTimeout: Duration = .seconds(5), debounce: Duration = .seconds(1), watchesLink: Bool = true,
            learnsFromRequests: Bool = true
        ) {
            self.probeURL = probeURL
            self.probeInterval = probeInterval
            self.probeRetryDelay = probeRetryDelay
            self.probeTimeout = probeTimeout
            self.debounce = debounce
            self.watchesLink = watchesLink
            self.learnsFromRequests = learnsFromRequests
        }
    }

    /// The durable offline queue: writes made without a network (``ClientOfflineQueue/send(_:)``,
    /// ``ClientOfflineQueue/perform(_:headers:options:)``, ``ClientOfflineQueue/enqueue(_:)``) stored in SQLite and replayed in order, once, by the
    /// sync coordinator when connectivity returns.
    public struct Offline: Sendable {
        /// The SQLite database file (its directory must exist), owned by this client alone: a
        /// second client on the same file gets ``NetworkError/storageFailed(_:)``. Default none:
        /// the queue lives in memory and does not survive the process (for tests; apps should
        /// set a file). If another process holds the file locked, a call waits at most 1 s for
        /// it (on the queue's own thread, never the cooperative pool), then fails with
        /// ``NetworkError/storageFailed(_:)`` saying the database is locked; for a second after
        /// a failed open, calls fail at once.
        public var storageFile: URL?
        /// The most items stored (waiting, dead, parked, expired); beyond it enqueues fail with
        /// ``NetworkError/queueFull(limit:)``. Default 1000.
        public var maxItems: Int
        /// Replays with a verdict (failures, conflicts) before an item becomes a dead letter. Default 3.
        public var maxAttempts: Int
        /// How long an item may wait before it expires. Default 24 h.
        public var expiry: Duration
        /// The wait before replaying an item whose last replay failed; a 429 or 503 whose
        /// `Retry-After` asks for longer gets that (up to the item's expiry). Default exponential
        /// from 5 s, doubling.
        public var retryBackoff: BackoffStrategy
        /// How often a drain is tried while items wait, even while the monitor says offline:
        /// then its first replay is the probe, so a monitor that learnt "offline" from a failed
        /// request and has no other source cannot hold the writes back for ever. An item still
        /// in its backoff is not replayed by it. Default 60 s.
        public var drainInterval: Duration
        /// What happens to a replay answered 409 or 412. Default ``ConflictResolver/manual``:
        /// parked for the app, never dropped.
        public var conflicts: ConflictResolver
        /// A queue shared with other clients (the replicas of a service) instead of this
        /// client's SQLite file: its items live in `sharedStorage` (`CourierPostgres`'s
        /// PostgreSQL storage, say), every client sharing it drains it, and each ordering key
        /// replays one item at a time across all of them (``SharedOfflineStorage``).
        /// ``storageFile`` is then ignored, and ``maxItems`` bounds the items waiting in the
        /// whole shared queue. Default none: SQLite.
        public var sharedStorage: (any SharedOfflineStorage)?
        /// With ``sharedStorage``: how long a claimed item stays this client's turn without a
        /// renewal. Leases are renewed every third of it while the replay runs; a client that
        /// died loses its turns when they expire, and another client replays those items under
        /// the same idempotency key. Default 30 s.
        public var lease: Duration = .seconds(30)
        /// The ordering key of this client's writes without one of their own
        /// (``RequestOptions/orderingKey``). Default ``OfflineItem/defaultOrderingKey``: with a
        /// shared storage, every client using the default shares one order.
        public var orderingKey: String = OfflineItem.defaultOrderingKey
        /// Where the queue's items are stored: SQLite, at ``storageFile`` or in memory.
        var storage: any OfflineStorage = SQLiteOfflineStorage()
        /// How the sync coordinator's drains reach the queue: through its handle.
        var drainQueue: @Sendable (OfflineQueue.Handle) -> any DrainQueue = { $0 }

        /// Creates offline-queue settings; the defaults are memory only, 1000 items, 3 attempts,
        /// 24 h expiry, a drain every 60 s while items wait (online or not), conflicts left to the app.
        public init(
            storageFile: URL? = nil, maxItems: Int = 1000, maxAttempts: Int = 3, expiry: Duration = .seconds(24 * 3600),
            retryBackoff: BackoffStrategy = .exponential(base: .seconds(5), multiplier: 2),
            drainInterval: Duration = .seconds(60), conflicts: ConflictResolver = .manual
        ) {
            self.storageFile = storageFile
            self.maxItems = maxItems
            self.maxAttempts = maxAttempts
            self.expiry = expiry
            self.retryBackoff = retryBackoff
            self.drainInterval = drainInterval
            self.conflicts = conflicts
        }

        var limits: OfflineLimits {
            OfflineLimits(maxAttempts: maxAttempts, expiry: expiry, backoff: retryBackoff, maxItems: maxItems)
        }
    }
}
