import Foundation

/// A typed description of one API call: where it goes, what it sends, and what it returns.
///
///     let user = try await client.send(Endpoint<User>(path: "users/42", version: .v1))
///
/// `Response` is what the body decodes to; use ``EmptyResponse`` when there is no body to read.
public struct Endpoint<Response: Decodable & Sendable>: Sendable {
    /// The path under the client's base URL (literal text; it is percent-encoded for you).
    public var path: String
    /// The HTTP method. Default GET.
    public var method: HTTPMethod
    /// Query items, in order.
    public var query: [URLQueryItem]
    /// Extra headers for this call.
    public var headers: HTTPHeaders
    /// A value encoded as the JSON body, with the client's JSON settings.
    public var body: (any Encodable & Sendable)?
    /// An API version prefix (`/v1/...`), or `nil` for none.
    public var version: APIVersion?
    /// Per-call overrides of the client's defaults.
    public var options: RequestOptions

    /// Creates an endpoint.
    public init(
        path: String,
        method: HTTPMethod = .get,
        query: [URLQueryItem] = [],
        headers: HTTPHeaders = [:],
        body: (any Encodable & Sendable)? = nil,
        version: APIVersion? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.path = path
        self.method = method
        self.query = query
        self.headers = headers
        self.body = body
        self.version = version
        self.options = options
    }
}

/// An API version, used as the first path segment (`v1`).
public struct APIVersion: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    /// `v1`
    public static let v1: APIVersion = "v1"
    /// `v2`
    public static let v2: APIVersion = "v2"
}

/// The body type for calls whose response body is ignored (204, or anything you do not read).
public struct EmptyResponse: Decodable, Sendable, Equatable {
    public init() {}
    public init(from decoder: any Decoder) throws {}
}

/// Per-request overrides. `nil` means "the client's default".
public struct RequestOptions: Sendable {
    /// The timeout of each attempt. Default: ``APIClient/Configuration/timeout``.
    public var timeout: Duration?
    /// The deadline for the whole request, all attempts and waits included.
    /// Default: ``APIClient/Configuration/requestDeadline``.
    public var deadline: Duration?
    /// The retry policy for this request. Default: the client's.
    public var retryPolicy: RetryPolicy?
    /// Whether the auth interceptor adds credentials. Default `true`; public paths (login,
    /// refresh, health) skip auth whatever this says.
    public var requiresAuth: Bool
    /// How the response cache may be used (the Cache component honours it).
    public var cachePolicy: CachePolicy
    /// What to do with this request when there is no connection (the OfflineQueue honours it).
    public var offlineBehavior: OfflineBehavior

    /// Creates options; every parameter defaults to the client's behaviour.
    public init(
        timeout: Duration? = nil,
        deadline: Duration? = nil,
        retryPolicy: RetryPolicy? = nil,
        requiresAuth: Bool = true,
        cachePolicy: CachePolicy = .useProtocolCachePolicy,
        offlineBehavior: OfflineBehavior = .fail
    ) {
        self.timeout = timeout
        self.deadline = deadline
        self.retryPolicy = retryPolicy
        self.requiresAuth = requiresAuth
        self.cachePolicy = cachePolicy
        self.offlineBehavior = offlineBehavior
    }
}

/// How a request may use the response cache.
public enum CachePolicy: Sendable, Equatable {
    /// Follow the response's HTTP caching headers (RFC 9111).
    case useProtocolCachePolicy
    /// Never read from the cache; still store a cacheable response.
    case reloadIgnoringCache
    /// Serve a stored response even if stale; go to the network only if there is none.
    case returnCacheElseLoad
    /// Never touch the cache.
    case bypass
}

/// What happens to a request issued while there is no connection.
public enum OfflineBehavior: Sendable, Equatable {
    /// Fail with ``NetworkError/noConnection(underlying:)``.
    case fail
    /// Queue it durably and replay it when the connection returns (writes).
    case queueWhenOffline
}
