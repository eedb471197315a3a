import Foundation

/// A URL's origin (RFC 6454): scheme, host and port, compared ignoring the case of the scheme
/// and host, with the default port made explicit (`https://h` and `https://h:443` are one origin).
/// Credentials never cross from one origin to another.
///
/// Read in one pass over the URL's text: on Linux each of `URL.scheme`, `.host` and `.port`
/// parses the URL again (about 2.5–5k instructions each), and the request path asks for them on
/// every request.
struct HTTPOrigin: Hashable, Sendable {
    /// Lowercased, e.g. `https`.
    let scheme: String
    /// Lowercased, without brackets for an IPv6 literal, percent-encoding kept as written.
    let host: String
    /// The explicit port, or the scheme's default (80, 443; -1 for other schemes).
    let port: Int

    /// The origin of `url`, or `nil` if it is not of the form `scheme://host…` with a host.
    init?(_ url: URL) {
        self.init(url.absoluteString)
    }

    /// The origin of an absolute URL's text, or `nil` if it has no `scheme://host`.
    init?(_ text: String) {
        let bytes = text.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let scheme = bytes[..<colon]
        guard !scheme.isEmpty, scheme.allSatisfy({ HTTPSyntax.isSchemeByte($0) }) else { return nil }
        var cursor = bytes.index(after: colon)
        for _ in 0..<2 {
            guard cursor < bytes.endIndex, bytes[cursor] == UInt8(ascii: "/") else { return nil }
            cursor = bytes.index(after: cursor)
        }
        let authorityEnd = bytes[cursor...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? bytes.endIndex
        var authority = bytes[cursor..<authorityEnd]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[authority.index(after: at)...] }
        var hostPart = authority
        var portPart: Substring.UTF8View.SubSequence?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let afterClose = authority.index(after: close)
            if afterClose < authority.endIndex {
                guard authority[afterClose] == UInt8(ascii: ":") else { return nil }
                portPart = authority[authority.index(after: afterClose)...]
            }
        } else if let portColon = authority.lastIndex(of: UInt8(ascii: ":")) {
            hostPart = authority[..<portColon]
            portPart = authority[authority.index(after: portColon)...]
        }
        guard !hostPart.isEmpty else { return nil }
        self.scheme = String(decoding: scheme.map(HTTPSyntax.asciiLowercased), as: UTF8.self)
        self.host = String(decoding: hostPart.map(HTTPSyntax.asciiLowercased), as: UTF8.self)
        if let portPart, !portPart.isEmpty {
            guard portPart.count <= 5, portPart.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let port = Int(String(decoding: portPart, as: UTF8.self)), port <= 65_535
            else { return nil }
            self.port = port
        } else {
            self.port = self.scheme == "https" ? 443 : self.scheme == "http" ? 80 : -1
        }
    }

    /// Whether the scheme is `http` or `https`.
    var isHTTP: Bool { scheme == "http" || scheme == "https" }
}
