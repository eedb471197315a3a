import Foundation

/// Adds credentials to requests that need them: `Authorization: Bearer <token>`, or a user
/// name and password by HTTP Basic (RFC 7617) or Digest (RFC 7616).
///
/// The token comes from `token`, read before every attempt (so a retry after a refresh uses the
/// new token); keep it cheap, e.g. a value your session code keeps up to date. A client with a
/// ``APIClient/Configuration/session`` builds its own, reading the session's token store.
/// Requests whose options say `requiresAuth: false`, and public paths (login, refresh, health),
/// go without, and so do requests to an origin other than the client's base URL's (a token
/// never leaves the host it is for). A request that needs auth when there is no token fails
/// with ``NetworkError/unauthorized(_:)`` (no response) without being sent.
///
/// A password (``basic(user:password:allowsInsecureHTTP:)``,
/// ``digest(user:password:allowsInsecureHTTP:)``) follows the same rules, and is never sent over
/// plain HTTP to a host that is not loopback unless `allowsInsecureHTTP` says so (such a
/// request fails with ``NetworkError/securityError(_:)`` before it is sent):
///
/// ```swift
/// let configuration = APIClient.Configuration(
///     baseURL: URL(string: "https://api.example.com")!,
///     auth: .basic(user: "ann", password: "s3cret"))
/// ```
///
/// - Basic goes with every request that needs credentials, without waiting for a 401.
/// - Digest answers the server's 401 challenge (MD5, SHA-256 and their `-sess` variants,
///   `qop=auth`, or RFC 2069's form when the challenge has no `qop`), once per request and
///   redirect hop: a second 401 is the call's answer (``NetworkError/unauthorized(_:)``). A
///   401 saying `stale=true` (the nonce expired) is answered again with the new nonce. Later
///   requests to the origin answer its last challenge at once, with the next nonce count.
///   Challenges are answered only when the interceptor is the configuration's
///   ``APIClient/Configuration/auth``, where the client re-sends the request; the body must be
///   one that can be sent again (not a stream read once).
public struct AuthInterceptor: RequestInterceptor {
    /// Paths that never carry credentials, matched on whole trailing path segments
    /// (`/auth/login` matches `/v1/auth/login`, not `/auth/login-history`). Matching is by
    /// suffix, so `/health` also matches `/patients/42/health`: that request goes without
    /// credentials and fails with 401 (safe, but name public paths precisely).
    public var publicPaths: [String] {
        didSet { publicSuffixes = Self.suffixes(publicPaths) }
    }
    /// ``publicPaths`` as bytes, without trailing slashes: matched on every request.
    private var publicSuffixes: [[UInt8]]
    // Two optionals rather than an enum: Swift 6.3.1 miscompiles a switch, in an async
    // function, over an enum whose payload is a typed-throws async closure (the program jumps
    // to a bad address).
    /// The app's own token closure, read before every attempt (when there is no store).
    private let token: (@Sendable () async throws(NetworkError) -> String?)?
    /// The client's ``TokenStore``: its published credential, refreshed when due.
    private let store: TokenStore.Handle?
    /// A user name and password, sent by Basic or Digest (then neither `token` nor `store`).
    let password: PasswordAuthentication?

    /// The usual public paths: login, token refresh, health check.
    public static let defaultPublicPaths = ["/auth/login", "/auth/refresh", "/health"]

    /// Creates an interceptor reading the current access token from `token`.
    public init(
        publicPaths: [String] = AuthInterceptor.defaultPublicPaths,
        token: @escaping @Sendable () async throws(NetworkError) -> String?
    ) {
        self.init(publicPaths: publicPaths, token: token, store: nil)
    }

    /// An interceptor sending `credential` by HTTP Basic (RFC 7617) with every request that
    /// needs credentials.
    /// - Parameters:
    ///   - credential: the user name and password.
    ///   - publicPaths: paths that go without (see ``publicPaths``). Default none.
    ///   - allowsInsecureHTTP: whether the password may go over plain HTTP to a host that is not
    ///     loopback (in clear text: only on a network you trust). Default `false`.
    public init(basic credential: PasswordCredential, publicPaths: [String] = [], allowsInsecureHTTP: Bool = false) {
        self.init(publicPaths: publicPaths, password: PasswordAuthentication(credential: credential, scheme: .basic, allowsInsecureHTTP: allowsInsecureHTTP))
    }

    /// An interceptor answering the server's HTTP Digest challenges (RFC 7616) with
    /// `credential`.
    /// - Parameters:
    ///   - credential: the user name and password.
    ///   - publicPaths: paths that go without (see ``publicPaths``). Default none.
    ///   - allowsInsecureHTTP: whether answers may go over plain HTTP to a host that is not
    ///     loopback. Default `false`.
    public init(digest credential: PasswordCredential, publicPaths: [String] = [], allowsInsecureHTTP: Bool = false) {
        self.init(publicPaths: publicPaths, password: PasswordAuthentication(credential: credential, scheme: .digest, allowsInsecureHTTP: allowsInsecureHTTP))
    }

    /// Basic authentication with `user` and `password` on every request to the client's
    /// origin (OkHttp's `Credentials.basic`, Alamofire's `authenticate(username:password:)`
    /// sent up front).
    public static func basic(user: String, password: String, allowsInsecureHTTP: Bool = false) -> AuthInterceptor {
        AuthInterceptor(basic: PasswordCredential(user: user, password: password), allowsInsecureHTTP: allowsInsecureHTTP)
    }

    /// Digest authentication with `user` and `password`: the client's origin's challenges are
    /// answered (see the type's discussion).
    public static func digest(user: String, password: String, allowsInsecureHTTP: Bool = false) -> AuthInterceptor {
        AuthInterceptor(digest: PasswordCredential(user: user, password: password), allowsInsecureHTTP: allowsInsecureHTTP)
    }

    /// An interceptor reading the credential the client's token store publishes.
    init(publicPaths: [String], store: TokenStore.Handle) {
        self.init(publicPaths: publicPaths, token: nil, store: store)
    }

    private init(
        publicPaths: [String], token: (@Sendable () async throws(NetworkError) -> String?)? = nil, store: TokenStore.Handle? = nil,
        password: PasswordAuthentication? = nil
    ) {
        let paths = publicPaths.map { $0.hasPrefix("/") ? $0 : "/" + $0 }
        self.publicPaths = paths
        self.publicSuffixes = Self.suffixes(paths)
        self.token = token
        self.store = store
        self.password = password
    }

    /// Adds the bearer token or the password (Basic, or Digest's answer to the origin's last
    /// challenge), or lets a public request through untouched.
    public func intercept(_ request: HTTPRequest, context: RequestContext) async throws(NetworkError) -> RequestInterception {
        guard applies(to: request, requiresAuth: context.requiresAuth, baseOrigin: context.baseOrigin, hasBaseURL: context.baseURL != nil)
        else { return .proceed(request) }
        var request = request
        try await addCredentials(to: &request)
        return .proceed(request)
    }

    /// Whether `request` gets credentials: it requires them, goes to the client's origin (any,
    /// when the client has no base URL), and its path is not public.
    func applies(to request: HTTPRequest, requiresAuth: Bool, baseOrigin: HTTPOrigin?, hasBaseURL: Bool) -> Bool {
        guard requiresAuth else { return false }
        if let baseOrigin {
            guard request.origin == baseOrigin else { return false }
        } else if hasBaseURL {
            return false
        }
        return !isPublic(pathOf: request.url)
    }

    /// Adds the token store's credential, or the password, to `request` when that needs no
    /// wait. Returns `false` when ``addCredentialsWaiting(to:)`` must: there is no store, or it
    /// must be asked. (The auth step calls the two itself, so that a credential already
    /// published costs no wait.) A Digest password adds its answer to the origin's last
    /// challenge, or nothing before the first.
    func addCredentialsNow(to request: inout HTTPRequest) throws(NetworkError) -> Bool {
        if let password {
            try password.authorize(&request)
            return true
        }
        guard let (value, version) = try store?.authorizationNow() else { return false }
        request.headers.replaceOrAdd(name: "Authorization", value: value)
        request.credentialVersion = version
        return true
    }

    /// Adds the credentials to `request`, for a request that ``applies(to:requiresAuth:baseOrigin:hasBaseURL:)``:
    /// at once when the store's credential can be read, else waiting for the store or the
    /// token closure.
    nonisolated(nonsending) func addCredentials(to request: inout HTTPRequest) async throws(NetworkError) {
        if try addCredentialsNow(to: &request) { return }
        try await addCredentialsWaiting(to: &request)
    }

    /// Adds the credentials that take a wait: the store's, asked for (its tokens not loaded
    /// yet, or a refresh due), or the token closure's.
    nonisolated(nonsending) func addCredentialsWaiting(to request: inout HTTPRequest) async throws(NetworkError) {
        if let store {
            let credential = try await store.current()
            guard let authorization = credential.authorization else { throw .unauthorized(nil) }
            request.headers.replaceOrAdd(name: "Authorization", value: authorization)
            request.credentialVersion = credential.version
        } else if let token {
            guard let token = try await token(), !token.isEmpty else { throw .unauthorized(nil) }
            request.headers.replaceOrAdd(name: "Authorization", value: "Bearer " + token)
        }
    }

    /// Adds the token store's credentials only if they are `identity`'s (a queued write's replay:
    /// it never goes out with another session's token), read in one snapshot with the identity.
    /// - Throws: ``NetworkError/unauthorized(_:)`` (nil response) when the session has another
    ///   identity or none, or there is no store to tell.
    nonisolated(nonsending) func addCredentials(to request: inout HTTPRequest, as identity: String) async throws(NetworkError) {
        guard let store else { throw .unauthorized(nil) }
        let credential = try await store.current()
        guard credential.appIdentity == identity, let authorization = credential.authorization else { throw .unauthorized(nil) }
        request.headers.replaceOrAdd(name: "Authorization", value: authorization)
        request.credentialVersion = credential.version
    }

    /// Whether `path` is one of ``publicPaths`` (as whole trailing segments).
    public func isPublic(_ path: String) -> Bool {
        var path = Array(path.utf8)
        while path.count > 1, path.last == UInt8(ascii: "/") { path.removeLast() }
        return path.withUnsafeBufferPointer { matchesPublicSuffix($0) }
    }

    /// Whether the path of `url`, as written (percent-encoding kept), is public: read from the
    /// URL's text in one pass with integer indices, since `URL.path` parses the URL again on
    /// Linux and this runs on every request.
    func isPublic(pathOf url: URL) -> Bool {
        publicPathScan(url.absoluteString) ?? isPublic(url.path)
    }

    /// ``isPublic(pathOf:)`` for a URL's text, before it is parsed (only text that is not
    /// `scheme://…` is parsed, for its path).
    func isPublic(pathOfURLText text: String) -> Bool {
        publicPathScan(text) ?? URL(string: text).map { isPublic($0.path) } ?? false
    }

    /// Whether the path in a URL's text is public, read in one pass with integer indices; `nil`
    /// when the text is not `scheme://…` (then ask Foundation for the path).
    private func publicPathScan(_ text: String) -> Bool? {
        text.withUTF8Bytes { bytes -> Bool? in
            let count = bytes.count
            // The path starts at the first "/" after "scheme://" and ends at "?" or "#".
            var index = 0
            while index < count, bytes[index] != UInt8(ascii: ":") { index += 1 }
            index += 3
            guard index <= count else { return nil }   // not "scheme://…": ask Foundation
            var start = index
            while start < count, !Self.endsAuthority(bytes[start]) { start += 1 }
            guard start < count, bytes[start] == UInt8(ascii: "/") else {
                return publicSuffixes.contains([UInt8(ascii: "/")])
            }
            var end = start + 1
            while end < count, bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") { end += 1 }
            while end - start > 1, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
            return matchesPublicSuffix(UnsafeBufferPointer(rebasing: bytes[start..<end]))
        }
    }

    /// Whether `path` (trailing slashes removed) ends with one of the public paths. Every
    /// public path starts with "/", so a suffix match ends on a segment boundary.
    private func matchesPublicSuffix(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        for suffix in publicSuffixes where suffix.count <= path.count {
            let offset = path.count - suffix.count
            var equal = true
            for index in suffix.indices where path[offset + index] != suffix[index] {
                equal = false
                break
            }
            if equal { return true }
        }
        return false
    }

    private static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    private static func suffixes(_ paths: [String]) -> [[UInt8]] {
        paths.map { path in
            var bytes = Array(path.utf8)
            while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
            return bytes
        }
    }
}
