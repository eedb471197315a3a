import Foundation

/// A URL's origin (RFC 6454): scheme, host and port, compared ignoring the case of the scheme
/// and host, with the default port made explicit (`https://h` and `https://h:443` are one origin).
/// Credentials never cross from one origin to another.
struct HTTPOrigin: Hashable, Sendable {
    let scheme: String
    let host: String
    let port: Int

    /// The origin of `url`, or `nil` if it has no scheme or host.
    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
    }
}
