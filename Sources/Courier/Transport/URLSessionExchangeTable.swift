import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Darwin)
import CryptoKit
import Security
#endif

/// The session delegate: routes URLSession's callbacks to the exchange of each task.
final class URLSessionExchangeTable: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Invariant: `exchanges`, `sweeper` and `accepted` are read and written only under `lock`;
    // `sweeper` is set exactly while `exchanges` is not empty.
    private let lock = Lock()
    private var exchanges: [Int: (exchange: URLSessionExchange, task: URLSessionTask, deadline: ContinuousClock.Instant)] = [:]
    private var sweeper: DispatchSourceTimer?
    private var accepted = 0
    /// The sweeper's own queue: URLSession answers on its delegate queue whatever the load on
    /// Swift's cooperative pool, so a deadline kept by a task there could fire after the answer.
    private let sweepQueue = DispatchQueue(label: "Courier.URLSessionExchangeTable.sweeper")
    /// Certificate pins, checked on Apple platforms (a Linux transport with pins is refused).
    private let pinner: CertificatePinner

    init(pinner: CertificatePinner) {
        self.pinner = pinner
    }

    /// How often the sweeper looks for exchanges past their deadline: the precision of the
    /// whole-exchange timeout. One timer for all exchanges, instead of one per request (a
    /// cancelled `Task.sleep` keeps its dispatch timer until it would have fired, so a timer per
    /// request piles up rate × timeout pending timers).
    static let sweepInterval = Duration.milliseconds(10)

    /// Tracks `exchange` until its task completes, or until `deadline`, when it is aborted with
    /// `timeout` (URLRequest's own timeout is only an idle timeout).
    func register(_ exchange: URLSessionExchange, task: URLSessionTask, deadline: ContinuousClock.Instant) {
        let newSweeper = lock.withLock { () -> DispatchSourceTimer? in
            exchanges[task.taskIdentifier] = (exchange, task, deadline)
            guard sweeper == nil else { return nil }
            let timer = DispatchSource.makeTimerSource(queue: sweepQueue)
            sweeper = timer
            return timer
        }
        guard let newSweeper else { return }
        let interval = DispatchTimeInterval.milliseconds(Int(Self.sweepInterval / .milliseconds(1)))
        newSweeper.schedule(deadline: .now() + interval, repeating: interval)
        newSweeper.setEventHandler { [weak self] in self?.sweep() }
        newSweeper.resume()
    }

    func remove(_ task: Int) {
        _ = lock.withLock { exchanges.removeValue(forKey: task) }
    }

    /// Aborts exchanges past their deadline; stops the sweeper when none are left.
    private func sweep() {
        let now = ContinuousClock.now
        let (expired, finished) = lock.withLock { () -> ([(URLSessionExchange, URLSessionTask)], DispatchSourceTimer?) in
            let expired = exchanges.values.filter { $0.deadline <= now }.map { ($0.exchange, $0.task) }
            guard exchanges.isEmpty else { return (expired, nil) }
            defer { sweeper = nil }
            return (expired, sweeper)
        }
        for (exchange, task) in expired {
            exchange.abort(.timeout(.attempt, underlying: nil))
            task.cancel()
        }
        finished?.cancel()
    }

    private func exchange(for task: URLSessionTask) -> URLSessionExchange? {
        lock.withLock { exchanges[task.taskIdentifier]?.exchange }
    }

    /// A response head whose `Content-Length` is over the limit ends the exchange here: the
    /// caller is answered at once and the task cancelled directly (FoundationNetworking on Linux
    /// ignores `.cancel` from this handler and would go on receiving the body).
    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let exchange = exchange(for: dataTask) else { return completionHandler(.cancel) }
        if exchange.receive(response) { return completionHandler(.allow) }
        exchange.abort(.responseTooLarge(limit: exchange.limit))
        dataTask.cancel()
        completionHandler(.cancel)
    }

    /// Bytes past the limit end the exchange at once: the caller gets `responseTooLarge` and
    /// what was received is dropped.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let exchange = exchange(for: dataTask) else { return }
        if exchange.receive(data) {
            lock.withLock { accepted += data.count }
            return
        }
        exchange.abort(.responseTooLarge(limit: exchange.limit))
        dataTask.cancel()
    }

    /// Courier follows redirects itself, the same way over every transport: the 3xx is the
    /// response.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    /// Server trust (Apple platforms) goes to the system's default handling, then, for a pinned
    /// host, the chain is checked against the pins. Any other challenge (a 401 or 407
    /// with `WWW-Authenticate` or `Proxy-Authenticate`) is declined, so the exchange ends at once
    /// with that response, which FoundationNetworking has already received; left unanswered it
    /// would hang the task until a timeout.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(Darwin)
        if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust {
            let host = challenge.protectionSpace.host
            let pins = pinner.pins(for: host)
            guard !pins.isEmpty, let trust = challenge.protectionSpace.serverTrust else {
                return completionHandler(.performDefaultHandling, nil)
            }
            // The usual evaluation first, then the pins against every certificate of the chain.
            var failure: CFError?
            let verified = SecTrustEvaluateWithError(trust, &failure)
            let chain = (SecTrustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
            let seen = chain.compactMap { certificate in
                CertificatePinner.subjectPublicKeyInfo(ofCertificate: SecCertificateCopyData(certificate) as Data)
                    .map { Data(SHA256.hash(data: $0)) }
            }
            if verified, seen.contains(where: pins.contains) {
                return completionHandler(.useCredential, URLCredential(trust: trust))
            }
            let reason = verified
                ? "certificate pinning failed for \(host): no pinned key in the chain; keys seen: \(seen.map(CertificatePinner.describe).joined(separator: ", "))"
                : "TLS: the certificate of \(host) is not trusted: \(failure.map { String(describing: $0) } ?? "evaluation failed")"
            exchange(for: task)?.abort(.securityError(reason))
            return completionHandler(.cancelAuthenticationChallenge, nil)
        }
        #endif
        exchange(for: task)?.declineChallenge()
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = lock.withLock { exchanges.removeValue(forKey: task.taskIdentifier)?.exchange }
        exchange?.complete(error)
    }

    /// Body bytes accepted by every exchange so far: what the size limits let in.
    var bytesAccepted: Int { lock.withLock { accepted } }
}
