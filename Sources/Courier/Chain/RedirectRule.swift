import Foundation

/// How one redirect hop is followed (RFC 9110 §15.4), as a pure function: given the request
/// just sent and its 3xx response, the request to send next, or why not.
///
/// - Only 301, 302, 303, 307 and 308 with a `Location` are followed; any other 3xx (a 304, a
///   300, a redirect without `Location`) is the final response.
/// - `Location` may be relative; it is resolved against the request's URL. One that cannot be
///   parsed fails with ``NetworkError/invalidResponse(_:)``.
/// - A target that is not `http`/`https`, or that leaves HTTPS for HTTP, fails with
///   ``NetworkError/securityError(_:)``.
/// - 301, 302 and 303 turn any method but `HEAD` into a `GET` without a body (and without the
///   headers that described it); 307 and 308 keep the method and the body, which a body
///   stream read once (``HTTPBodyStream/isReopenable``) cannot: that fails with
///   ``NetworkError/invalidRequest(_:)``.
/// - A hop to another origin (scheme, host or port) drops `Authorization`,
///   `Proxy-Authorization` and `Cookie`, so credentials never reach a host they were not meant
///   for.
enum RedirectRule {
    /// What to do after a response.
    enum Step: Sendable {
        /// Not a redirect to follow: the response is final.
        case final
        /// Send this request next.
        case follow(HTTPRequest)
        /// The redirect is refused.
        case refuse(NetworkError)
    }

    /// Headers that carry credentials: dropped on a hop to another origin.
    static let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie"]
    /// Headers that describe a body: dropped when a hop drops the body.
    static let bodyHeaders = ["Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding"]

    /// The step after `response` to `request`.
    static func next(after request: HTTPRequest, response: HTTPResponse) -> Step {
        guard [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["Location"] else {
            return .final
        }
        let trimmed = location.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, let target = URL(string: trimmed, relativeTo: request.url)?.absoluteURL else {
            return .refuse(.invalidResponse("the \(response.status) redirect's Location could not be parsed as a URL"))
        }
        let scheme = target.scheme?.lowercased()
        guard scheme == "http" || scheme == "https", let host = target.host, !host.isEmpty else {
            return .refuse(.securityError("refused a redirect to \(scheme.map { "scheme \($0)" } ?? "a URL without a scheme or host")"))
        }
        if request.url.scheme?.lowercased() == "https", scheme == "http" {
            return .refuse(.securityError("refused a redirect from HTTPS to HTTP"))
        }
        var next = request
        next.url = target
        if [301, 302, 303].contains(response.status), request.method != .head {
            next.method = .get
            next.body = nil
            next.bodyStream = nil
            for name in bodyHeaders { next.headers.remove(name: name) }
        } else if request.bodyStream?.isReopenable == false {
            return .refuse(.invalidRequest(
                "the \(response.status) redirect asks for the body again, and its stream can be read only once"))
        }
        if HTTPOrigin(target) != request.origin {
            for name in credentialHeaders { next.headers.remove(name: name) }
            next.credentialVersion = nil
        }
        return .follow(next)
    }
}
