import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite struct AuthInterceptorTests {
    private static let api = "https://api.example.com"

    private func authorized(
        _ auth: AuthInterceptor, _ request: HTTPRequest, requiresAuth: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> HTTPRequest? {
        do throws(NetworkError) {
            return proceeded(try await auth.intercept(request, context: testContext(requiresAuth: requiresAuth)), sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test("adds Authorization: Bearer <token>")
    func addsBearer() async {
        let auth = AuthInterceptor { "t" }
        let sent = await authorized(auth, makeTestRequest(Self.api + "/v1/items", headers: ["Accept": "application/json"]))
        #expect(sent?.headers.values(for: "Authorization") == ["Bearer t"])
        #expect(sent?.headers["Accept"] == "application/json")
        #expect(sent?.headers.count == 2)
        #expect(sent?.url == URL(string: Self.api + "/v1/items")!)
    }

    @Test("replaces every existing Authorization field")
    func replacesExisting() async {
        let auth = AuthInterceptor { "fresh" }
        let request = makeTestRequest(Self.api + "/v1/items", headers: [
            "authorization": "Basic b2xkOm9sZA==", "Accept": "*/*", "Authorization": "Bearer stale",
        ])
        let sent = await authorized(auth, request)
        #expect(sent?.headers.values(for: "Authorization") == ["Bearer fresh"])
        #expect(sent?.headers["Accept"] == "*/*")
        #expect(sent?.headers.count == 2)
    }

    @Test("requiresAuth: false sends no credentials and does not read the token")
    func requiresAuthFalse() async {
        let reads = Locked(0)
        let auth = AuthInterceptor {
            reads.withLock { $0 += 1 }
            return "t"
        }
        let sent = await authorized(auth, makeTestRequest(Self.api + "/v1/items"), requiresAuth: false)
        #expect(sent?.headers.contains("Authorization") == false)
        #expect(reads.withLock { $0 } == 0)
    }

    @Test(
        "public paths go without credentials",
        arguments: ["/auth/login", "/v1/auth/login", "/health", "/auth/refresh/", "/auth/refresh", "/api/v2/health//",
                    "/auth/login?next=/home"])
    func publicPathsSkip(path: String) async {
        let reads = Locked(0)
        let auth = AuthInterceptor {
            reads.withLock { $0 += 1 }
            return "t"
        }
        let sent = await authorized(auth, makeTestRequest(Self.api + path))
        #expect(sent?.headers.contains("Authorization") == false)
        #expect(reads.withLock { $0 } == 0)
        #expect(auth.isPublic(URL(string: Self.api + path)!.path))
    }

    @Test(
        "paths that merely contain a public path are not public",
        arguments: ["/auth/login-history", "/myauth/login", "/auth/login/extra", "/healthcheck", "/v1/unhealth",
                    "/auth", "/", ""])
    func lookalikePathsAreNotPublic(path: String) async {
        let auth = AuthInterceptor { "t" }
        let sent = await authorized(auth, makeTestRequest(Self.api + path))
        #expect(sent?.headers["Authorization"] == "Bearer t")
        #expect(!auth.isPublic(URL(string: Self.api + path)!.path))
    }

    @Test("custom public paths are normalised to start with a slash")
    func customPublicPaths() {
        let auth = AuthInterceptor(publicPaths: ["status", "/oauth/token"]) { "t" }
        #expect(auth.publicPaths == ["/status", "/oauth/token"])
        #expect(auth.isPublic("/status"))
        #expect(auth.isPublic("/v3/status/"))
        #expect(auth.isPublic("/oauth/token"))
        #expect(!auth.isPublic("/mystatus"))
        #expect(!auth.isPublic("/health")) // the defaults are replaced, not extended
        #expect(AuthInterceptor.defaultPublicPaths == ["/auth/login", "/auth/refresh", "/health"])
    }

    @Test("a nil token fails with .unauthorized")
    func nilToken() async {
        let auth = AuthInterceptor { nil }
        let error = await thrown { () async throws(NetworkError) in
            try await auth.intercept(makeTestRequest(Self.api + "/v1/items"), context: testContext())
        }
        guard case .unauthorized? = error else {
            Issue.record("expected .unauthorized, got \(String(describing: error))")
            return
        }
    }

    @Test("an empty token fails with .unauthorized")
    func emptyToken() async {
        let auth = AuthInterceptor { "" }
        let error = await thrown { () async throws(NetworkError) in
            try await auth.intercept(makeTestRequest(Self.api + "/v1/items"), context: testContext())
        }
        guard case .unauthorized? = error else {
            Issue.record("expected .unauthorized, got \(String(describing: error))")
            return
        }
    }

    @Test("an error from the token provider is passed on unchanged")
    func tokenProviderError() async {
        let auth = AuthInterceptor { () async throws(NetworkError) -> String? in throw .noConnection(underlying: nil) }
        let error = await thrown { () async throws(NetworkError) in
            try await auth.intercept(makeTestRequest(Self.api + "/v1/items"), context: testContext())
        }
        guard case .noConnection? = error else {
            Issue.record("expected .noConnection, got \(String(describing: error))")
            return
        }
    }

    @Test("no token is needed for public paths or requiresAuth: false")
    func noTokenNeededWhenSkipping() async {
        let auth = AuthInterceptor { nil }
        let login = await authorized(auth, makeTestRequest(Self.api + "/auth/login", method: .post))
        #expect(login?.headers.isEmpty == true)
        let anonymous = await authorized(auth, makeTestRequest(Self.api + "/v1/items"), requiresAuth: false)
        #expect(anonymous?.headers.isEmpty == true)
    }

    @Test("the token is read on every call, so a refreshed token is picked up")
    func tokenReadPerCall() async {
        let current = Locked<String?>("first")
        let auth = AuthInterceptor { current.withLock { $0 } }
        let request = makeTestRequest(Self.api + "/v1/items")

        #expect(await authorized(auth, request)?.headers["Authorization"] == "Bearer first")
        current.withLock { $0 = "second" }
        #expect(await authorized(auth, request)?.headers["Authorization"] == "Bearer second")
        // A retry carries the previous attempt's header; it is replaced, not duplicated.
        let retried = await authorized(auth, makeTestRequest(Self.api + "/v1/items", headers: ["Authorization": "Bearer first"]))
        #expect(retried?.headers.values(for: "Authorization") == ["Bearer second"])
        current.withLock { $0 = nil }
        let error = await thrown { () async throws(NetworkError) in try await auth.intercept(request, context: testContext()) }
        guard case .unauthorized? = error else {
            Issue.record("expected .unauthorized once the token is gone, got \(String(describing: error))")
            return
        }
    }

    @Test("public paths with a trailing slash match")
    func publicPathsWithATrailingSlashMatch() {
        let auth = AuthInterceptor(publicPaths: ["/status/"]) { "t" }
        #expect(auth.isPublic("/status"))
        #expect(auth.isPublic("/v1/status/"))
        #expect(!auth.isPublic("/statuses"))
    }

    @Test("as a request interceptor, a password goes by Basic to the base origin only, and not to public paths")
    func basicAsRequestInterceptor() async {
        let auth = AuthInterceptor(basic: PasswordCredential(user: "ann", password: "pw"), publicPaths: ["/health"])
        let context = RequestContext(id: RequestID(1), baseURL: URL(string: Self.api)!)
        let sent = try? proceeded(await auth.intercept(makeTestRequest(Self.api + "/v1/items", headers: ["Authorization": "Bearer x"]), context: context))
        #expect(sent?.headers.values(for: "Authorization") == ["Basic YW5uOnB3"])
        for url in ["https://other.example.com/v1/items", Self.api + "/health"] {
            let untouched = try? proceeded(await auth.intercept(makeTestRequest(url), context: context))
            #expect(untouched?.headers.contains("Authorization") == false, "\(url)")
        }
    }

    @Test("a Digest password adds nothing before its first challenge; a Basic one the RFC forbids fails invalidRequest")
    func passwordEdges() async {
        let digest = AuthInterceptor.digest(user: "ann", password: "pw")
        #expect(await authorized(digest, makeTestRequest(Self.api + "/v1/items"))?.headers.contains("Authorization") == false)
        let error = await thrown { () async throws(NetworkError) in
            try await AuthInterceptor.basic(user: "a:b", password: "pw").intercept(makeTestRequest(Self.api + "/v1/items"), context: testContext())
        }
        guard case .invalidRequest? = error else {
            Issue.record("expected .invalidRequest, got \(String(describing: error))")
            return
        }
    }
}
