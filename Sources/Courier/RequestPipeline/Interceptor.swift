/// Changes, answers or refuses a request before it reaches the transport.
///
/// Request interceptors run in the configured order before every attempt (so a retried request
/// picks up a refreshed token). Each returns the request to send on, or a response that
/// short-circuits the transport (and the interceptors after it), or throws to fail the request.
public protocol RequestInterceptor: Sendable {
    /// Inspects or changes `request` before it is sent.
    func intercept(_ request: HTTPRequest, context: RequestContext) async throws(NetworkError) -> RequestInterception
}

/// What a request interceptor decided.
public enum RequestInterception: Sendable {
    /// Go on with this (possibly changed) request.
    case proceed(HTTPRequest)
    /// Do not send anything: answer with this response.
    case respond(HTTPResponse)
}

/// Inspects or changes a response before the retry decision and the caller see it.
/// Response interceptors run in the configured order after every attempt that got a response.
public protocol ResponseInterceptor: Sendable {
    /// Inspects or changes `response` to `request`; throwing fails the request.
    func intercept(_ response: HTTPResponse, to request: HTTPRequest, context: RequestContext) async throws(NetworkError) -> HTTPResponse
}

/// What an interceptor knows about the request it is looking at.
public struct RequestContext: Sendable {
    /// The request's identifier, the same in every event about it.
    public let id: RequestID
    /// The attempt number, 1 for the first.
    public let attempt: Int
    /// The request's per-call options.
    public let options: RequestOptions
    /// The client's logger, if logging is on.
    public let logger: (any NetworkLogger)?

    /// Creates a context (interceptor tests build their own).
    public init(id: RequestID, attempt: Int = 1, options: RequestOptions = RequestOptions(), logger: (any NetworkLogger)? = nil) {
        self.id = id
        self.attempt = attempt
        self.options = options
        self.logger = logger
    }
}

/// Identifies one request through the pipeline, its events and its logs.
public struct RequestID: Hashable, Sendable, CustomStringConvertible {
    /// The number, unique within one client.
    public let rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "#\(rawValue)" }
}
