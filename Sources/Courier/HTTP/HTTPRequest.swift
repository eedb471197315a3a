import Foundation

/// An HTTP request, as Courier's transports send it: a method, an absolute URL, header fields,
/// an optional body and an optional timeout.
///
/// A plain value: creating or changing one never fails and checks nothing, so requests are easy
/// to build up step by step (and middleware can rewrite them). ``validate()`` checks the whole
/// request at once; every transport calls it before sending, so a malformed request fails with
/// ``NetworkError/invalidURL(_:)`` or ``NetworkError/invalidRequest(_:)`` and never reaches the
/// network.
public struct HTTPRequest: Sendable {
    /// The request method. Default `.get`.
    public var method: HTTPMethod
    /// The absolute `http` or `https` URL to send the request to. See ``URLBuilder`` to build
    /// one safely from a base URL, a path and query items.
    public var url: URL
    /// The header fields, in order. Default empty; transports may add their own (such as
    /// `Content-Length` or `Host`) when sending.
    public var headers: HTTPHeaders
    /// The request body, or nil for none. Default nil.
    public var body: Data?
    /// How long the transport may wait for this request before failing it with
    /// ``NetworkError/timeout(underlying:)``; nil (the default) means the transport's own
    /// default timeout.
    public var timeout: Duration?

    /// Creates a request. Nothing is checked here; see ``validate()``.
    public init(
        method: HTTPMethod = .get,
        url: URL,
        headers: HTTPHeaders = [:],
        body: Data? = nil,
        timeout: Duration? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// Checks that the request can be sent as is, and throws for the first problem found:
    ///
    /// - ``NetworkError/invalidURL(_:)`` if the URL's scheme is not `http` or `https` (compared
    ///   ignoring case) or the URL has no host (or an empty one);
    /// - ``NetworkError/invalidRequest(_:)`` if the method is not an RFC 9110 token (a method
    ///   with a space or CR/LF would corrupt the request line), if ``timeout`` is zero or
    ///   negative, or if a header is invalid (see ``HTTPHeaders/validate()``).
    ///
    /// Messages never include the full URL or header values, which may carry credentials.
    public func validate() throws(NetworkError) {
        try HTTPSyntax.requireHTTPURL(url.absoluteURL, named: "the request URL")
        guard HTTPSyntax.isToken(method.rawValue) else {
            throw .invalidRequest("method \(HTTPSyntax.quotedForMessage(method.rawValue)) is not a valid token")
        }
        if let timeout, timeout <= .zero {
            throw .invalidRequest("timeout must be positive, got \(timeout)")
        }
        try headers.validate()
    }
}
