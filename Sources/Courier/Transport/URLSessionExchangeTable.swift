import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session delegate: routes URLSession's callbacks to the exchange of each task.
final class URLSessionExchangeTable: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Invariant: `exchanges` and `sweeping` are read and written only under `lock`;
    // `followsRedirects` is immutable.
    private let lock = Lock()
    private var exchanges: [Int: (exchange: URLSessionExchange, task: URLSessionTask, deadline: ContinuousClock.Instant)] = [:]
    private var sweeping = false
    private let followsRedirects: Bool

    /// How often the sweeper looks for exchanges past their deadline: the precision of the
    /// whole-exchange timeout. One timer for all exchanges, instead of one per request (a
    /// cancelled `Task.sleep` keeps its dispatch timer until it would have fired, so a timer per
    /// request piles up rate × timeout pending timers).
    static let sweepInterval = Duration.milliseconds(50)

    init(followsRedirects: Bool) {
        self.followsRedirects = followsRedirects
    }

    /// Tracks `exchange` until its task completes, or until `deadline`, when it is aborted with
    /// `timeout` (URLRequest's own timeout is only an idle timeout).
    func register(_ exchange: URLSessionExchange, task: URLSessionTask, deadline: ContinuousClock.Instant) {
        let startSweeper = lock.withLock { () -> Bool in
            exchanges[task.taskIdentifier] = (exchange, task, deadline)
            defer { sweeping = true }
            return !sweeping
        }
        if startSweeper {
            Task.detached { [weak self] in await self?.sweep() }
        }
    }

    func remove(_ task: Int) {
        _ = lock.withLock { exchanges.removeValue(forKey: task) }
    }

    /// Aborts exchanges past their deadline, every `sweepInterval`, while there are any.
    private func sweep() async {
        while true {
            try? await Task.sleep(for: Self.sweepInterval)
            let now = ContinuousClock.now
            let (expired, keepGoing) = lock.withLock { () -> ([(URLSessionExchange, URLSessionTask)], Bool) in
                let expired = exchanges.values.filter { $0.deadline <= now }.map { ($0.exchange, $0.task) }
                if exchanges.isEmpty { sweeping = false }
                return (expired, !exchanges.isEmpty)
            }
            for (exchange, task) in expired {
                exchange.abort(.timeout(underlying: nil))
                task.cancel()
            }
            if !keepGoing { return }
        }
    }

    private func exchange(for task: URLSessionTask) -> URLSessionExchange? {
        lock.withLock { exchanges[task.taskIdentifier]?.exchange }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let accepted = exchange(for: dataTask)?.receive(response) ?? false
        completionHandler(accepted ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if exchange(for: dataTask)?.receive(data) == false { dataTask.cancel() }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard followsRedirects else { return completionHandler(nil) }
        guard URLSessionTransport.allowsRedirect(from: response.url ?? task.currentRequest?.url, to: request.url) else {
            exchange(for: task)?.abort(.securityError("refused a redirect from HTTPS to \(request.url?.scheme ?? "an unknown scheme")"))
            task.cancel()
            return completionHandler(nil)
        }
        completionHandler(request)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = lock.withLock { exchanges.removeValue(forKey: task.taskIdentifier)?.exchange }
        exchange?.complete(error)
    }
}
