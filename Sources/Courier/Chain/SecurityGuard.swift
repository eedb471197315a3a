import Foundation

/// Refuses requests that would travel in clear text, and warns about responses that lack the
/// usual security headers.
///
/// - Requests: HTTPS only, except to loopback hosts (`localhost`, `127.0.0.0/8`, `::1`) and
///   hosts listed in ``insecureHostsAllowed``; anything else fails with
///   ``NetworkError/securityError(_:)`` before a byte is sent.
/// - Redirects from HTTPS to HTTP are refused where Courier follows redirects (its
///   `RedirectRule`, the same over every transport).
/// - Responses, when ``warnsOnMissingSecurityHeaders`` is on: a warning through the request's
///   logger when `X-Content-Type-Options` or `X-Frame-Options` is missing.
public struct SecurityGuard: Interceptor, RequestInterceptor, ResponseInterceptor {
    /// Hosts that may be reached over plain HTTP besides loopback (e.g. a sidecar), compared
    /// case-insensitively. Default none.
    public var insecureHostsAllowed: Set<String>
    /// Whether to warn about missing security headers. Default `false`: they are browser
    /// headers, which most API responses rightly lack; turn it on to audit a service that
    /// also serves browsers.
    public var warnsOnMissingSecurityHeaders: Bool

    /// The headers whose absence is reported.
    public static let expectedResponseHeaders = ["X-Content-Type-Options", "X-Frame-Options"]

    /// Creates a guard; by default only loopback may use plain HTTP.
    public init(insecureHostsAllowed: Set<String> = [], warnsOnMissingSecurityHeaders: Bool = false) {
        self.insecureHostsAllowed = insecureHostsAllowed
        self.warnsOnMissingSecurityHeaders = warnsOnMissingSecurityHeaders
    }

    /// As a step of the chain: refuses what ``intercept(_:context:)`` refuses, then inspects the response.
    public func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
        try check(request)
        let response = try await chain.proceed(request)
        // The context is built only for a guard that warns.
        if warnsOnMissingSecurityHeaders { inspect(response, to: request, context: chain.context) }
        return response
    }

    /// Lets HTTPS through, and plain HTTP only to loopback or an allowed host.
    public func intercept(_ request: HTTPRequest, context: RequestContext) throws(NetworkError) -> RequestInterception {
        try check(request)
        return .proceed(request)
    }

    /// Throws ``NetworkError/securityError(_:)`` unless `request` may be sent: what
    /// ``intercept(_:context:)`` does, without handing the request back.
    func check(_ request: HTTPRequest) throws(NetworkError) {
        let origin = request.origin
        if origin?.scheme == "https" { return }
        let scheme = origin?.scheme ?? request.url.scheme?.lowercased()
        let host = origin?.host ?? request.url.host?.lowercased() ?? ""
        let allowed = Self.isLoopback(host) || insecureHostsAllowed.contains { $0.lowercased() == host }
        guard scheme == "http", allowed else {
            throw .securityError("refused plain \(scheme ?? "schemeless") request to \(host.isEmpty ? "an unknown host" : host): HTTPS is required")
        }
    }

    /// Logs a warning when the response lacks an expected security header.
    public func intercept(_ response: HTTPResponse, to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        inspect(response, to: request, context: context)
        return response
    }

    /// Warns (through the context's logger) about the expected security headers `response`
    /// lacks: what ``intercept(_:to:context:)`` does.
    func inspect(_ response: HTTPResponse, to request: HTTPRequest, context: RequestContext) {
        guard warnsOnMissingSecurityHeaders, let logger = context.logger, logger.isEnabled(.warning) else { return }
        let missing = Self.expectedResponseHeaders.filter { !response.headers.contains($0) }
        if !missing.isEmpty {
            logger.log(.warning, "response lacks security headers", metadata: [
                "request": context.id.description, "host": request.url.host ?? "", "missing": missing.joined(separator: ","),
            ])
        }
    }

    /// Whether `host` names this machine: `localhost`, an IPv4 address in 127.0.0.0/8, or `::1`.
    /// One pass over the bytes: every plain-HTTP request to a loopback service passes here.
    static func isLoopback(_ host: String) -> Bool {
        if HTTPSyntax.equalsIgnoringASCIICase(host, "localhost") || host == "::1" || host == "[::1]" { return true }
        // A dotted IPv4 literal: four decimal octets, digits only, no leading zeros, the first 127.
        var octets = 0, digits = 0, value = 0, first = -1
        var leadingZero = false
        for byte in host.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0 else { return false }
                if octets == 0 { first = value }
                octets += 1
                (digits, value, leadingZero) = (0, 0, false)
                continue
            }
            guard byte >= 0x30, byte <= 0x39, digits < 3, !leadingZero else { return false }
            if digits == 0 && byte == 0x30 { leadingZero = true }
            value = value * 10 + Int(byte - 0x30)
            digits += 1
            guard value <= 255 else { return false }
        }
        return octets == 3 && digits > 0 && first == 127
    }
}
