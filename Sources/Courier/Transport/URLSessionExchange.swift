import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange in flight: the caller's continuation, the bytes received so far, and
/// why it was aborted, if it was. The caller is answered exactly once, by whichever comes first:
/// an abort (cancellation, timeout, size limit), or URLSession's completion.
final class URLSessionExchange: @unchecked Sendable {
    // Invariant: every stored property is read and written only under `lock`; the continuation
    // is taken out under the lock and resumed outside it, exactly once.
    private let lock = Lock()
    let limit: Int
    /// The request's URL: the host and port of a connection error.
    let url: URL?
    private var continuation: CheckedContinuation<HTTPResponse, any Error>?
    private var response: HTTPURLResponse?
    private var body = Data()
    private var abortReason: NetworkError?
    /// Whether the transport declined an authentication challenge: the task then ends as
    /// cancelled, but the response (a 401 or 407 with its body) is the answer.
    private var challengeDeclined = false
    /// The outcome, once known; kept for a `start` that comes after it.
    private var outcome: Result<HTTPResponse, any Error>?

    init(limit: Int, url: URL? = nil) {
        self.limit = limit
        self.url = url
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

    /// Records that an authentication challenge was declined (see `complete`).
    func declineChallenge() {
        lock.withLock { challengeDeclined = true }
    }

    /// URLSession's completion: the response, or the error, unless an abort came first.
    func complete(_ error: (any Error)?) {
        finish {
            if let abortReason { return .failure(abortReason) }
            if challengeDeclined, let response, (error as? URLError)?.code == .cancelled {
                return .success(Self.convert(response, body: body))
            }
            if let urlError = error as? URLError {
                if urlError.code == .dataLengthExceedsMaximum { return .failure(NetworkError.responseTooLarge(limit: limit)) }
                return .failure(NetworkError(urlError, url: url))
            }
            if let error { return .failure(NetworkError.unknown(underlying: error)) }
            guard let response else { return .failure(NetworkError.unknown(underlying: nil)) }
            return .success(Self.convert(response, body: body))
        }
    }

    /// Courier's response from Foundation's. On Linux `allHeaderFields` is a dictionary, so
    /// repeated fields (two `Set-Cookie`) arrive already joined into one with ", ".
    static func convert(_ response: HTTPURLResponse, body: Data) -> HTTPResponse {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            headers.add(name: String(describing: name), value: String(describing: value))
        }
        return HTTPResponse(status: response.statusCode, headers: headers, body: body)
    }
}
