import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: Foundation's `URLSession` (FoundationNetworking on Linux).
///
/// On top of `URLSession` it enforces a whole-exchange deadline (URLRequest's own timeout is
/// only an idle timeout, which a server trickling bytes never trips), a maximum response size
/// (checked as the bytes arrive, so an oversized body is never fully buffered), refuses
/// HTTPS→HTTP redirects, cancels the HTTP request when the caller's task is cancelled, and
/// maps `URLError` codes to ``NetworkError`` keeping the `URLError` as the cause.
///
/// Each exchange is one `URLSession.data(for:delegate:)` call, whose completion Foundation
/// delivers inline rather than through the delegate queue; the only delegate callbacks are the
/// size guard's, one per chunk of body received, and the redirect check.
public final class URLSessionTransport: HTTPTransport {
    /// Limits and session settings, with documented defaults.
    public struct Configuration: Sendable {
        /// The deadline for a whole exchange when the request sets none. Default 60 s.
        public var timeout: Duration
        /// The largest response body accepted, in bytes; `nil` accepts any size. Default 10 MiB.
        ///
        /// The check runs as the body arrives, in a delegate callback per chunk, so an
        /// oversized body is never buffered whole. That callback is a hop through Foundation's
        /// delegate queue: `nil` removes it, for callers who trust their server's sizes.
        public var maximumResponseSize: Int?
        /// Whether to follow redirects (never from HTTPS to HTTP). Default `true`.
        public var followsRedirects: Bool

        /// Creates a configuration; the defaults are 60 s, 10 MiB, following redirects.
        public init(timeout: Duration = .seconds(60), maximumResponseSize: Int? = 10 * 1024 * 1024, followsRedirects: Bool = true) {
            self.timeout = timeout
            self.maximumResponseSize = maximumResponseSize
            self.followsRedirects = followsRedirects
        }
    }

    /// The settings this transport runs with.
    public let configuration: Configuration
    private let session: URLSession
    private let deadlines = DeadlineSweeper()

    /// Creates a transport with its own `URLSession` (ephemeral: no cookies, no URL cache,
    /// since caching is the Cache component's job).
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        self.session = URLSession(
            configuration: sessionConfiguration,
            delegate: RedirectGuard(followsRedirects: configuration.followsRedirects),
            delegateQueue: queue)
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

        // The exchange runs in a task of its own so that the deadline can cancel it without
        // cancelling the caller's task.
        let sizeGuard = configuration.maximumResponseSize.map(ResponseSizeGuard.init(limit:))
        let session = self.session
        let exchange = Task { try await session.data(for: urlRequest, delegate: sizeGuard) }
        let deadline = deadlines.add(at: .now + timeout) { exchange.cancel() }
        defer { deadlines.remove(deadline) }
        let outcome = await withTaskCancellationHandler {
            await exchange.result
        } onCancel: {
            exchange.cancel()
        }

        switch outcome {
        case .success(let (body, response)):
            guard let response = response as? HTTPURLResponse else { throw .unknown(underlying: nil) }
            if let limit = configuration.maximumResponseSize, body.count > limit { throw .responseTooLarge(limit: limit) }
            var headers = HTTPHeaders()
            for (name, value) in response.allHeaderFields {
                headers.add(name: String(describing: name), value: String(describing: value))
            }
            let answer = HTTPResponse(status: response.statusCode, headers: headers, body: body)
            if configuration.followsRedirects, let refused = RedirectGuard.refusedRedirect(from: request.url, answer: answer) {
                throw .securityError("refused a redirect from HTTPS to \(refused.scheme ?? "an unknown scheme")")
            }
            return answer
        case .failure(let error):
            // Why the exchange was cut short, most specific first.
            if let sizeGuard, sizeGuard.isExceeded { throw .responseTooLarge(limit: sizeGuard.limit) }
            if deadlines.hasExpired(deadline) { throw .timeout(underlying: error as? URLError) }
            if Task.isCancelled || error is CancellationError { throw .cancelled }
            if let urlError = error as? URLError {
                if urlError.code == .dataLengthExceedsMaximum, let limit = configuration.maximumResponseSize {
                    throw .responseTooLarge(limit: limit)
                }
                throw NetworkError(urlError)
            }
            throw .unknown(underlying: error)
        }
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

/// The delegate of one exchange: counts the body bytes as they arrive and cancels the exchange
/// once they exceed the limit, so an oversized body is never buffered whole.
private final class ResponseSizeGuard: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Invariant: `received` and `exceeded` are read and written only under `state`'s lock.
    let limit: Int
    private let state = Locked((received: 0, exceeded: false))

    init(limit: Int) {
        self.limit = limit
    }

    /// Whether the body went past the limit (and the exchange was cancelled for it).
    var isExceeded: Bool { state.withLock { $0.exceeded } }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let limit = self.limit
        let exceeded = state.withLock { state -> Bool in
            state.received += data.count
            if state.received > limit { state.exceeded = true }
            return state.exceeded
        }
        if exceeded { dataTask.cancel() }
    }

    // Foundation may route a task's redirects to its own delegate rather than the session's.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard let redirects = session.delegate as? RedirectGuard else { return completionHandler(request) }
        redirects.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request, completionHandler: completionHandler)
    }
}

/// The session delegate: follows redirects unless configured not to, and never from HTTPS to
/// HTTP. A refused redirect leaves its 3xx response as the exchange's answer, which
/// ``URLSessionTransport`` then turns into a `securityError`.
final class RedirectGuard: NSObject, URLSessionTaskDelegate, Sendable {
    let followsRedirects: Bool

    init(followsRedirects: Bool) {
        self.followsRedirects = followsRedirects
    }

    /// Whether a redirect from `origin` to `target` may be followed: anything but leaving HTTPS.
    static func allows(from origin: URL?, to target: URL?) -> Bool {
        origin?.scheme?.lowercased() != "https" || target?.scheme?.lowercased() == "https"
    }

    /// The target of a redirect that `answer` asked for and that ``allows(from:to:)`` refused,
    /// if it is one: a 3xx to a request for `url` whose `Location` leaves HTTPS.
    static func refusedRedirect(from url: URL, answer: HTTPResponse) -> URL? {
        guard (300..<400).contains(answer.status), let location = answer.headers["Location"],
              let target = URL(string: location, relativeTo: url)?.absoluteURL,
              !allows(from: url, to: target) else { return nil }
        return target
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let follow = followsRedirects && Self.allows(from: response.url ?? task.currentRequest?.url, to: request.url)
        completionHandler(follow ? request : nil)
    }
}

/// Cancels exchanges past their deadline. One sweep every ``interval`` looks at all of them,
/// instead of a timer per request: a cancelled `Task.sleep` keeps its dispatch timer until it
/// would have fired, so a timer per request piles up rate × timeout pending timers.
final class DeadlineSweeper: Sendable {
    /// One registered deadline.
    struct Token: Hashable, Sendable {
        fileprivate let id: Int
    }

    /// How often the sweeper looks: the precision of the deadlines.
    static let interval = Duration.milliseconds(50)

    private struct Entry {
        let deadline: ContinuousClock.Instant
        let onExpiry: @Sendable () -> Void
    }

    private struct State {
        var nextID = 0
        var pending: [Int: Entry] = [:]
        var expired: Set<Int> = []
        var sweeping = false
    }

    private let state = Locked(State())

    /// Calls `onExpiry` once `deadline` has passed, unless the token is removed first.
    func add(at deadline: ContinuousClock.Instant, onExpiry: @escaping @Sendable () -> Void) -> Token {
        let (id, startSweeping) = state.withLock { state -> (Int, Bool) in
            state.nextID += 1
            state.pending[state.nextID] = Entry(deadline: deadline, onExpiry: onExpiry)
            defer { state.sweeping = true }
            return (state.nextID, !state.sweeping)
        }
        if startSweeping {
            Task.detached { await self.sweep() }
        }
        return Token(id: id)
    }

    /// Forgets `token`, whether or not its deadline passed.
    func remove(_ token: Token) {
        state.withLock { state in
            if state.pending.removeValue(forKey: token.id) == nil { state.expired.remove(token.id) }
        }
    }

    /// Whether `token`'s deadline passed (and its `onExpiry` was called) before it was removed.
    func hasExpired(_ token: Token) -> Bool {
        state.withLock { $0.expired.contains(token.id) }
    }

    /// Expires the deadlines that passed, every ``interval``, while any are pending.
    private func sweep() async {
        while true {
            try? await Task.sleep(for: Self.interval)
            let now = ContinuousClock.now
            let (expired, keepGoing) = state.withLock { state -> ([Entry], Bool) in
                let due = state.pending.filter { $0.value.deadline <= now }
                for id in due.keys {
                    state.pending[id] = nil
                    state.expired.insert(id)
                }
                if state.pending.isEmpty { state.sweeping = false }
                return (Array(due.values), !state.pending.isEmpty)
            }
            for entry in expired { entry.onExpiry() }
            if !keepGoing { return }
        }
    }
}
