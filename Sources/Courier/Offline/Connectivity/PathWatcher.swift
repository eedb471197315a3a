#if canImport(Network)
import Dispatch
import Network

/// Watches the machine's network path through `NWPathMonitor` (Apple platforms) and tells
/// Courier whether the path is usable (`status == .satisfied`), once at start and after each
/// change.
final class PathWatcher: Sendable {
    // `NWPathMonitor` is Sendable and thread-safe; its handler runs on `queue`, one call at a time.
    private let monitor: NWPathMonitor
    private let queue = DispatchQueue(label: "Courier.PathWatcher")

    /// A watcher that has not started yet.
    init() {
        monitor = NWPathMonitor()
    }

    /// Starts the monitor and calls `onChange(path.status == .satisfied)` with the first path
    /// and with each update, on a private serial queue. Call once.
    func start(onChange: @escaping @Sendable (Bool) -> Void) {
        monitor.pathUpdateHandler = { path in
            onChange(path.status == .satisfied)
        }
        monitor.start(queue: queue)
    }

    /// Cancels the monitor. Idempotent. Updates already queued may still arrive.
    func close() {
        monitor.cancel()
    }
}
#endif
