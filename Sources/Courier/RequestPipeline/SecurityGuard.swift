import Foundation

/// Refuses requests that would travel in clear text, and warns about responses that lack the
/// usual security headers (as the seeds' security interceptor does).
///
/// - Requests: HTTPS only, except to loopback hosts (`localhost`, `127.0.0.0/8`, `::1`) and
///   hosts listed in ``insecureHostsAllowed``; anything else fails with
///   ``NetworkError/securityError(_:)`` before a byte is sent.
/// - Redirects from HTTPS to HTTP are refused by ``URLSessionTransport`` itself, since the
///   transport is what follows redirects.
/// - Responses: a warning through the request's logger when `X-Content-Type-Options` or
///   `X-Frame-Options` is missing.
public struct SecurityGuard: RequestInterceptor, ResponseInterceptor {
    /// Hosts that may be reached over plain HTTP besides loopback (e.g. a sidecar). Default none.
    public var insecureHostsAllowed: Set<String>
    /// Whether to warn about missing security headers. Default `true`.
    public var warnsOnMissingSecurityHeaders: Bool

    /// The headers whose absence is reported.
    public static let expectedResponseHeaders = ["X-Content-Type-Options", "X-Frame-Options"]

    /// Creates a guard; by default only loopback may use plain HTTP.
    public init(insecureHostsAllowed: Set<String> = [], warnsOnMissingSecurityHeaders: Bool = true) {
        self.insecureHostsAllowed = Set(insecureHostsAllowed.map { $0.lowercased() })
        self.warnsOnMissingSecurityHeaders = warnsOnMissingSecurityHeaders
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext) throws(NetworkError) -> RequestInterception {
        let scheme = request.url.scheme?.lowercased()
        if scheme == "https" { return .proceed(request) }
        let host = request.url.host?.lowercased() ?? ""
        guard scheme == "http", Self.isLoopback(host) || insecureHostsAllowed.contains(host) else {
            throw .securityError("refused plain \(scheme ?? "schemeless") request to \(host.isEmpty ? "an unknown host" : host): HTTPS is required")
        }
        return .proceed(request)
    }

    public func intercept(_ response: HTTPResponse, to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        guard warnsOnMissingSecurityHeaders, let logger = context.logger, logger.isEnabled(.warning) else { return response }
        let missing = Self.expectedResponseHeaders.filter { !response.headers.contains($0) }
        if !missing.isEmpty {
            logger.log(.warning, "response lacks security headers", metadata: [
                "request": context.id.description, "host": request.url.host ?? "", "missing": missing.joined(separator: ","),
            ])
        }
        return response
    }

    /// Whether `host` names this machine: `localhost`, an IPv4 address in 127.0.0.0/8, or `::1`.
    public static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets.allSatisfy({ UInt8($0) != nil }) else { return false }
        return octets[0] == "127"
    }
}
