import Foundation

/// An HTTP request, as Courier's transports send it: a method, an absolute URL, header fields,
/// an optional body, and the limits of its exchange (a timeout, a maximum response size).
///
/// A plain value: creating or changing one never fails and checks nothing, so requests are easy
/// to build up step by step (and middleware can rewrite them). ``validate()`` checks the whole
/// request at once; every transport calls it before sending, so a malformed request fails with
/// ``NetworkError/invalidURL(_:)`` or ``NetworkError/invalidRequest(_:)`` and never reaches the
/// network.
public struct HTTPRequest: Sendable {
    /// The request method. Default `.get`.
    public var method: HTTPMethod
    /// The absolute `http` or `https` URL to send the request to. (An ``Endpoint`` builds one
    /// safely from the client's base URL, a path and query items.)
    public var url: URL {
        didSet { knownOrigin = nil }
    }
    /// The header fields, in order. Default empty; transports may add their own (such as
    /// `Content-Length` or `Host`) when sending.
    public var headers: HTTPHeaders
    /// The request body, or nil for none. Default nil.
    public var body: Data?
    /// A body read piece by piece while it is sent (a file, a generator), instead of ``body``;
    /// setting both is an invalid request. Default nil.
    public var bodyStream: HTTPBodyStream?
    /// How long the transport may take over the whole exchange before failing it with
    /// ``NetworkError/timeout(_:underlying:)``; nil (the default) means the transport's own
    /// default. The client sets it on every attempt (the attempt timeout, capped by what is left
    /// of the request's deadline).
    public var timeout: Duration?
    /// The largest response body the transport accepts, in bytes; a larger one fails with
    /// ``NetworkError/responseTooLarge(limit:)`` without being kept whole. nil (the default)
    /// means ``defaultMaximumResponseSize``. The client sets it on every attempt from its
    /// ``APIClient/Configuration/Limits/maxResponseBytes``.
    public var maximumResponseSize: Int?

    /// The origin of ``url`` when whoever built the request already knew it (the client builds
    /// every endpoint's URL under its base URL, whose origin it read once); cleared whenever
    /// `url` changes. Read through ``origin``.
    var knownOrigin: HTTPOrigin?

    /// The origin of ``url``: the known one, or read from the URL's text. Validation, the
    /// security guard and the auth interceptor all need it, on every attempt.
    var origin: HTTPOrigin? { knownOrigin ?? HTTPOrigin(url) }

    /// The version of the session's tokens whose access token this request carries, set by the
    /// auth interceptor; a 401 to it asks the token store for a newer one (see `TokenStore`).
    var credentialVersion: Int?

    /// The response size limit of a request that sets none: 10 MiB.
    public static let defaultMaximumResponseSize = 10 * 1024 * 1024

    /// The limit a transport enforces: ``maximumResponseSize``, or the default when it is `nil`.
    public var responseSizeLimit: Int { maximumResponseSize ?? Self.defaultMaximumResponseSize }

    /// Creates a request. Nothing is checked here; see ``validate()``.
    public init(
        method: HTTPMethod = .get,
        url: URL,
        headers: HTTPHeaders = [:],
        body: Data? = nil,
        timeout: Duration? = nil,
        maximumResponseSize: Int? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maximumResponseSize = maximumResponseSize
    }

    /// A request whose URL's origin its builder already knows (see ``knownOrigin``). Every
    /// field is assigned here: delegating to the public initializer, then setting the origin,
    /// built the request twice (a copy of its fields and a destroy on every request).
    init(method: HTTPMethod, url: URL, headers: HTTPHeaders, body: Data?, knownOrigin: HTTPOrigin?) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.knownOrigin = knownOrigin
    }

    /// Checks that the request can be sent as is, and throws for the first problem found:
    ///
    /// - ``NetworkError/invalidURL(_:)`` if the URL's scheme is not `http` or `https` (compared
    ///   ignoring case) or the URL has no host (or an empty one);
    /// - ``NetworkError/invalidRequest(_:)`` if the method is not an RFC 9110 token (a method
    ///   with a space or CR/LF would corrupt the request line), if ``timeout`` is zero or
    ///   negative, if ``maximumResponseSize`` is negative, if both ``body`` and ``bodyStream``
    ///   are set or a HEAD has either, or if a header is invalid (see
    ///   ``HTTPHeaders/validate()``).
    ///
    /// Messages never include the full URL or header values, which may carry credentials.
    public func validate() throws(NetworkError) {
        if origin?.isHTTP != true {
            try HTTPSyntax.requireHTTPURL(url.absoluteURL, named: "the request URL")
        }
        guard HTTPSyntax.isToken(method.rawValue) else {
            throw .invalidRequest("method \(HTTPSyntax.quotedForMessage(method.rawValue)) is not a valid token")
        }
        if let timeout, timeout <= .zero {
            throw .invalidRequest("timeout must be positive, got \(timeout)")
        }
        if method == .head, body?.isEmpty == false || bodyStream != nil {
            throw .invalidRequest("a HEAD request has no body")
        }
        if body != nil, bodyStream != nil {
            throw .invalidRequest("a request has either a body or a body stream, not both")
        }
        if let length = bodyStream?.length, length < 0 {
            throw .invalidRequest("a body stream's length must not be negative, got \(length)")
        }
        if let maximumResponseSize, maximumResponseSize < 0 {
            throw .invalidRequest("maximumResponseSize must not be negative, got \(maximumResponseSize)")
        }
        try headers.validate()
    }
}
