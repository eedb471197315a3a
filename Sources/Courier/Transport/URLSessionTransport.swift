import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: Foundation's `URLSession` (FoundationNetworking on Linux).
///
/// On top of `URLSession` it enforces a whole-exchange timeout, a maximum response size
/// (checked against `Content-Length` up front and against the bytes as they arrive, so an
/// oversized body is never fully buffered; the deadline is checked every 50 ms by one sweeper
/// for all requests), refuses HTTPS→HTTP redirects, cancels the HTTP
/// request when the caller's task is cancelled, and maps `URLError` codes to ``NetworkError``
/// keeping the `URLError` as the cause.
public final class URLSessionTransport: HTTPTransport {
    /// Limits and session settings, with documented defaults.
    public struct Configuration: Sendable {
        /// The deadline for a whole exchange when the request sets none. Default 60 s.
        public var timeout: Duration
        /// The largest response body accepted, in bytes. Default 10 MiB.
        public var maximumResponseSize: Int
        /// Whether to follow redirects (never from HTTPS to HTTP). Default `true`.
        public var followsRedirects: Bool

        /// Creates a configuration; the defaults are 60 s, 10 MiB, following redirects.
        public init(timeout: Duration = .seconds(60), maximumResponseSize: Int = 10 * 1024 * 1024, followsRedirects: Bool = true) {
            self.timeout = timeout
            self.maximumResponseSize = maximumResponseSize
            self.followsRedirects = followsRedirects
        }
    }

    /// The settings this transport runs with.
    public let configuration: Configuration
    private let session: URLSession
    private let exchanges: ExchangeTable

    /// Creates a transport with its own `URLSession` (ephemeral: no cookies, no URL cache,
    /// since caching is the Cache component's job).
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let exchanges = ExchangeTable(followsRedirects: configuration.followsRedirects)
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        self.exchanges = exchanges
        self.session = URLSession(configuration: sessionConfiguration, delegate: exchanges, delegateQueue: queue)
    }

    deinit {
        session.invalidateAndCancel()
    }

    public func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse {
        try request.validate()
        if Task.isCancelled { throw .cancelled }
        let timeout = request.timeout ?? configuration.timeout
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.timeoutInterval = max(0.001, timeout.inSeconds)
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        urlRequest.httpBody = request.body

        let task = session.dataTask(with: urlRequest)
        let exchange = Exchange(limit: configuration.maximumResponseSize)
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    // Registered first, so a completion for this task can always find its exchange.
                    exchanges.register(exchange, task: task, deadline: .now + timeout)
                    if exchange.start(continuation) {
                        task.resume()
                    } else {
                        exchanges.remove(task.taskIdentifier)
                    }
                }
            } onCancel: {
                exchange.abort(.cancelled)
                // `URLSessionTask.cancel()` waits for Foundation's work queue: never block in a
                // cancellation handler, which runs holding the cancelled task's status lock.
                DispatchQueue.global().async { task.cancel() }
            }
        } catch let error as NetworkError {
            throw error
        } catch {
            throw .unknown(underlying: error)
        }
    }
}

extension URLSessionTransport {
    /// Whether one redirect hop from `origin` to `target` may be followed: anything but leaving
    /// HTTPS (judged per hop, so `http → https → http` is refused at its last hop).
    static func allowsRedirect(from origin: URL?, to target: URL?) -> Bool {
        origin?.scheme?.lowercased() != "https" || target?.scheme?.lowercased() == "https"
    }
}

extension NetworkError {
    /// Maps a `URLError` to Courier's error model, keeping it as the cause.
    public init(_ error: URLError) {
        switch error.code {
        case .notConnectedToInternet, .cannotConnectToHost, .networkConnectionLost, .dnsLookupFailed,
             .cannotFindHost, .internationalRoamingOff, .dataNotAllowed, .callIsActive:
            self = .noConnection(underlying: error)
        case .timedOut:
            self = .timeout(underlying: error)
        case .cancelled:
            self = .cancelled
        case .badURL, .unsupportedURL:
            self = .invalidURL(error.localizedDescription)
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
             .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
             .clientCertificateRequired, .appTransportSecurityRequiresSecureConnection:
            self = .securityError(error.localizedDescription)
        default:
            self = .unknown(underlying: error)
        }
    }
}

/// One HTTP exchange in flight: the caller's continuation, the bytes received so far, and
/// why it was aborted, if it was. The caller is answered exactly once, by whichever comes first:
/// an abort (cancellation, timeout, size limit), or URLSession's completion.
private final class Exchange: @unchecked Sendable {
    // Invariant: every stored property is read and written only under `lock`; the continuation
    // is taken out under the lock and resumed outside it, exactly once.
    private let lock = Lock()
    private let limit: Int
    private var continuation: CheckedContinuation<HTTPResponse, any Error>?
    private var response: HTTPURLResponse?
    private var body = Data()
    private var abortReason: NetworkError?
    /// The outcome, once known; kept for a `start` that comes after it.
    private var outcome: Result<HTTPResponse, any Error>?

    init(limit: Int) {
        self.limit = limit
    }

    /// Stores the caller's continuation; returns `false` (having answered it) if the outcome
    /// is already known, e.g. the caller was cancelled before the task started.
    func start(_ continuation: CheckedContinuation<HTTPResponse, any Error>) -> Bool {
        let known = lock.withLock { () -> Result<HTTPResponse, any Error>? in
            if outcome == nil { self.continuation = continuation }
            return outcome
        }
        guard let known else { return true }
        continuation.resume(with: known)
        return false
    }

    /// Ends the exchange with `reason` (the first reason wins) and answers the caller now.
    func abort(_ reason: NetworkError) {
        finish {
            if abortReason == nil { abortReason = reason }
            return .failure(abortReason ?? reason)
        }
    }

    /// Sets the outcome (computed under the lock) unless one is known, and answers the caller.
    private func finish(_ decide: () -> Result<HTTPResponse, any Error>) {
        let (continuation, result) = lock.withLock { () -> (CheckedContinuation<HTTPResponse, any Error>?, Result<HTTPResponse, any Error>?) in
            guard outcome == nil else { return (nil, nil) }
            let result = decide()
            outcome = result
            defer { self.continuation = nil }
            return (self.continuation, result)
        }
        if let continuation, let result { continuation.resume(with: result) }
    }

    /// Accepts the response head; returns `false` (after recording why) if it must be refused.
    func receive(_ response: URLResponse) -> Bool {
        lock.withLock {
            self.response = response as? HTTPURLResponse
            if response.expectedContentLength > Int64(limit) {
                if abortReason == nil { abortReason = .responseTooLarge(limit: limit) }
                return false
            }
            return true
        }
    }

    /// Accepts body bytes; returns `false` (after recording why) once the limit is exceeded.
    func receive(_ data: Data) -> Bool {
        lock.withLock {
            guard abortReason == nil else { return false }
            if body.count + data.count > limit {
                abortReason = .responseTooLarge(limit: limit)
                body = Data()
                return false
            }
            body.append(data)
            return true
        }
    }

    /// URLSession's completion: the response, or the error, unless an abort came first.
    func complete(_ error: (any Error)?) {
        finish {
            if let abortReason { return .failure(abortReason) }
            if let urlError = error as? URLError {
                if urlError.code == .dataLengthExceedsMaximum { return .failure(NetworkError.responseTooLarge(limit: limit)) }
                return .failure(NetworkError(urlError))
            }
            if let error { return .failure(NetworkError.unknown(underlying: error)) }
            guard let response else { return .failure(NetworkError.unknown(underlying: nil)) }
            var headers = HTTPHeaders()
            for (name, value) in response.allHeaderFields {
                headers.add(name: String(describing: name), value: String(describing: value))
            }
            return .success(HTTPResponse(status: response.statusCode, headers: headers, body: body))
        }
    }
}

/// The session delegate: routes URLSession's callbacks to the exchange of each task.
private final class ExchangeTable: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Invariant: `exchanges` and `sweeping` are read and written only under `lock`;
    // `followsRedirects` is immutable.
    private let lock = Lock()
    private var exchanges: [Int: (exchange: Exchange, task: URLSessionTask, deadline: ContinuousClock.Instant)] = [:]
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
    func register(_ exchange: Exchange, task: URLSessionTask, deadline: ContinuousClock.Instant) {
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
            let (expired, keepGoing) = lock.withLock { () -> ([(Exchange, URLSessionTask)], Bool) in
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

    private func exchange(for task: URLSessionTask) -> Exchange? {
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
