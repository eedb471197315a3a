import Foundation

extension NetworkError {
    /// Where a failure came from, in the few kinds a caller decides on: match it instead of
    /// listing cases, which keeps working when a case is added.
    ///
    /// ```swift
    /// switch error.category {
    /// case .offline: showOfflineBanner()          // the device has no network
    /// case .transport: showServerUnreachable()    // no answer from that server: retry later
    /// case .http(let status) where status >= 500: reportServerTrouble()
    /// case .http: showRefusal(error.userMessage)  // the server answered no
    /// case .cancelled: break                      // not a failure to show
    /// default: log(error)
    /// }
    /// ```
    public enum Category: Sendable, Equatable, Hashable {
        /// The device has no network, as the operating system says (``noConnection(underlying:)``).
        case offline
        /// The exchange with the server gave no usable HTTP answer while the device is online:
        /// no connection to that server, a connection lost, a time limit, a response that broke
        /// off or broke HTTP's rules (``cannotConnect(host:port:reason:underlying:)``,
        /// ``connectionLost(host:port:underlying:)``, ``timeout(_:underlying:)``,
        /// ``malformedResponse(_:underlying:)``, ``invalidResponse(_:)``), or that server failed
        /// so often lately that its circuit breaker refused the attempt
        /// (``circuitOpen(origin:retryAfter:)``). OkHttp's `IOException`, AsyncHTTPClient's
        /// `HTTPClientError`.
        case transport
        /// The server answered with this final status that is not a success (a 304 to a decoded
        /// call, a 3xx not followed, every 4xx and 5xx), and the error keeps the ``response``:
        /// ``unauthorized(_:)`` with a response, ``forbidden(_:)``, ``notFound(_:)``,
        /// ``conflict(_:)``, ``notModified(_:)``, ``serverError(_:)``.
        case http(status: Int)
        /// The GraphQL response had `errors` (``graphQL(_:)``), whatever its HTTP status.
        case graphQL
        /// Refused or failed on this side, by the input or a rule of the client: the URL, the
        /// request, encoding or decoding, a security rule, a size or redirect limit, a token that
        /// cannot be read, no credentials to send, nothing cached for `cacheOnly`. Sending the
        /// same thing again fails the same way.
        case client
        /// Courier's own machinery could not take the call: at capacity (``overloaded``), a
        /// component that is not there, stopped or restarting (including a group the
        /// configuration did not ask for), the offline queue full or its storage failing.
        case component
        /// The caller's task was cancelled (``cancelled``).
        case cancelled
        /// Anything else (``unknown(underlying:)``): an error thrown by the app's own code
        /// (an interceptor, a file) or one Courier does not know.
        case unknown
    }

    /// Where this failure came from (see ``Category``).
    public var category: Category {
        switch self {
        case .noConnection:
            .offline
        case .cannotConnect, .connectionLost, .timeout, .malformedResponse, .invalidResponse, .circuitOpen:
            .transport
        case .unauthorized(let response?):
            .http(status: response.status)
        case .forbidden(let response), .notFound(let response), .conflict(let response), .notModified(let response),
             .serverError(let response):
            .http(status: response.status)
        case .graphQL:
            .graphQL
        case .invalidURL, .invalidRequest, .unauthorized(nil), .invalidToken, .tooManyRedirects, .decodingError,
             .encodingError, .securityError, .responseTooLarge, .notCached:
            .client
        case .overloaded, .componentUnavailable, .componentRestarted, .queueFull, .storageFailed:
            .component
        case .cancelled:
            .cancelled
        case .unknown:
            .unknown
        }
    }
}
