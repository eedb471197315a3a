import Foundation

/// Refuses requests that would travel in clear text, and warns about responses that lack the
/// usual security headers.
///
/// - Requests: HTTPS only, except to loopback hosts (`localhost`, `127.0.0.0/8`, `::1`) and
///   hosts listed in ``insecureHostsAllowed``; anything else fails with
///   ``NetworkError/securityError(_:)`` before a byte is sent.
/// - Redirects from HTTPS to HTTP are refused where Courier follows redirects (its
///   `RedirectRule`, the same over every transport).
/// - Responses: a warning through the request's logger when `X-Content-Type-Options` or
///   `X-Frame-Options` is missing.
public struct SecurityGuard: RequestInterceptor, ResponseInterceptor {
    /// Hosts that may be reached over plain HTTP besides loopback (e.g. a sidecar), compared
    /// case-insensitively. Default none.
    public var insecureHostsAllowed: Set<String>
    /// Whether to warn about missing security headers. Default `true`.
    public var warnsOnMissingSecurityHeaders: Bool

    /// The headers whose absence is reported.
    public static let expectedResponseHeaders = ["X-Content-Type-Options", "X-Frame-Options"]

    /// Creates a guard; by default only loopback may use plain HTTP.
    public init(insecureHostsAllowed: Set<String> = [], warnsOnMissingSecurityHeaders: Bool = true) {
        self.insecureHostsAllowed = insecureHostsAllowed
        self.warnsOnMissingSecurityHeaders = warnsOnMissingSecurityHeaders
    }

    /// Lets HTTPS through, and plain HTTP only to loopback or an allowed host.
    public func intercept(_ request: HTTPRequest, context: RequestContext) throws(NetworkError) -> RequestInterception {
        try check(request)
        return .proceed(request)
    }

    /// Throws ``NetworkError/securityError(_:)`` unless `request` may be sent: what
    /// ``intercept(_:context:)`` does, without handing the request back (the pipeline calls it
    /// directly).
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
    /// lacks: what ``intercept(_:to:context:)`` does, called directly by the pipeline.
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
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        // A dotted IPv4 literal: four decimal octets, digits only, no leading zeros.
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        let isIPv4 = octets.count == 4 && octets.allSatisfy { octet in
            (1...3).contains(octet.count) && octet.utf8.allSatisfy { (48...57).contains($0) }
                && (octet.count == 1 || octet.first != "0") && Int(octet)! <= 255
        }
        return isIPv4 && octets[0] == "127"
    }
}
