import Foundation

/// What an interceptor knows about the request it is looking at.
public struct RequestContext: Sendable {
    /// The request's identifier, the same in every event about it.
    public let id: RequestID
    /// The attempt number, 1 for the first.
    public let attempt: Int
    /// Whether the request should carry credentials (``RequestOptions/requiresAuth``).
    public let requiresAuth: Bool
    /// The client's base URL: interceptors that attach credentials do so only for its origin.
    public let baseURL: URL?
    /// The client's logger, if it has one.
    public let logger: (any NetworkLogger)?
    /// The values the caller attached to this call (``RequestOptions/tags``), the same in every
    /// attempt.
    public let tags: RequestTags
    /// The origin of ``baseURL``, worked out once per client rather than once per request.
    let baseOrigin: HTTPOrigin?

    /// Creates a context (interceptor tests build their own).
    public init(
        id: RequestID, attempt: Int = 1, requiresAuth: Bool = true, baseURL: URL? = nil, logger: (any NetworkLogger)? = nil,
        tags: RequestTags = RequestTags()
    ) {
        self.tags = tags
        self.id = id
        self.attempt = attempt
        self.requiresAuth = requiresAuth
        self.baseURL = baseURL
        self.baseOrigin = baseURL.flatMap(HTTPOrigin.init)
        self.logger = logger
    }

    /// A context whose base origin is already known (the pipeline's, per attempt).
    init(
        id: RequestID, attempt: Int, requiresAuth: Bool, baseURL: URL?, baseOrigin: HTTPOrigin?, logger: (any NetworkLogger)?,
        tags: RequestTags
    ) {
        self.tags = tags
        self.id = id
        self.attempt = attempt
        self.requiresAuth = requiresAuth
        self.baseURL = baseURL
        self.baseOrigin = baseOrigin
        self.logger = logger
    }
}
