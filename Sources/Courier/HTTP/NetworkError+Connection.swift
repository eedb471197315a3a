import Foundation

extension NetworkError {
    /// Why no connection to a server could be made (``NetworkError/cannotConnect(host:port:reason:underlying:)``),
    /// as URLSession (`cannotConnectToHost`, `cannotFindHost`, `secureConnectionFailed`) and
    /// OkHttp (`ConnectException`, `UnknownHostException`, `SSLHandshakeException`) tell them apart.
    public enum ConnectFailure: String, Sendable, Equatable, Hashable, CustomStringConvertible {
        /// The host answered that nothing accepts connections on the port (a service that is
        /// down or restarting, a wrong port).
        case refused
        /// The host's name could not be resolved (DNS): no such name, or no resolver answered.
        case hostNotFound
        /// No route to the host or its network, or the connection could not be made for a
        /// reason the transport did not name.
        case unreachable
        /// The TCP connection was made but the TLS handshake failed: no protocol version or
        /// cipher in common, a server that does not speak TLS on that port, a handshake cut off.
        case tlsHandshake
        /// The proxy failed, not the server: its name did not resolve, or it refused to open a
        /// tunnel to the server (it answered `CONNECT` with an error). The host and port are
        /// still the server's, the one the request was for; the proxy's own error (the
        /// underlying error) names the proxy.
        case proxy

        /// Whether trying again later may succeed: a refused or unreachable server may come
        /// back (a restart, a route that returns); a name that does not resolve, a TLS
        /// mismatch, or a proxy that failed (its configuration or its policy), stays so.
        public var isTransient: Bool { self == .refused || self == .unreachable }

        /// What went wrong, in a few words: `connection refused`, `host not found`, ….
        public var description: String {
            switch self {
            case .refused: "connection refused"
            case .hostNotFound: "host not found"
            case .unreachable: "unreachable"
            case .tlsHandshake: "TLS handshake failed"
            case .proxy: "the proxy failed"
            }
        }
    }

    /// The host and port a connection to `url` goes to: the URL's port, else its scheme's
    /// default (443 for `https`/`wss`, 80 otherwise); an IPv6 host without its brackets.
    static func destination(of url: URL?) -> (host: String, port: Int) {
        guard let url else { return ("unknown host", 0) }
        let host = url.host ?? "unknown host"
        let scheme = url.scheme?.lowercased()
        let port = url.port ?? (scheme == "https" || scheme == "wss" ? 443 : 80)
        return (host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host, port)
    }

    /// `host:port`, an IPv6 host in brackets (`[::1]:8080`).
    static func hostAndPort(_ host: String, _ port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
