import Foundation

/// A URL's origin (RFC 6454): scheme, host and port, compared ignoring the case of the scheme
/// and host, with the default port made explicit (`https://h` and `https://h:443` are one origin).
/// Credentials never cross from one origin to another.
///
/// Read in one pass over the URL's text: on Linux each of `URL.scheme`, `.host` and `.port`
/// parses the URL again, and the request path asks for them on every request.
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
        guard let origin = text.withUTF8Bytes({ Self.parse($0) }) else { return nil }
        self = origin
    }

    private init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// One pass over the bytes, with integer indices (no generic collection code).
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPOrigin? {
        let count = bytes.count
        var colon = 0
        while colon < count, bytes[colon] != UInt8(ascii: ":") {
            guard HTTPSyntax.isSchemeByte(bytes[colon]) else { return nil }
            colon += 1
        }
        guard colon > 0, colon + 2 < count, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/") else {
            return nil
        }
        let authorityStart = colon + 3
        var authorityEnd = authorityStart
        var hostStart = authorityStart
        while authorityEnd < count {
            let byte = bytes[authorityEnd]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "@") { hostStart = authorityEnd + 1 }
            authorityEnd += 1
        }
        var hostEnd = authorityEnd
        var portStart = authorityEnd
        if hostStart < authorityEnd, bytes[hostStart] == UInt8(ascii: "[") {
            var close = hostStart + 1
            while close < authorityEnd, bytes[close] != UInt8(ascii: "]") { close += 1 }
            guard close < authorityEnd else { return nil }
            if close + 1 < authorityEnd {
                guard bytes[close + 1] == UInt8(ascii: ":") else { return nil }
                portStart = close + 2
            }
            hostStart += 1
            hostEnd = close
        } else {
            var index = authorityEnd
            while index > hostStart {
                index -= 1
                if bytes[index] == UInt8(ascii: ":") {
                    hostEnd = index
                    portStart = index + 1
                    break
                }
            }
        }
        guard hostEnd > hostStart else { return nil }
        let scheme = String(unsafeUninitializedCapacity: colon) { buffer in
            for index in 0..<colon { buffer[index] = HTTPSyntax.asciiLowercased(bytes[index]) }
            return colon
        }
        let host = String(unsafeUninitializedCapacity: hostEnd - hostStart) { buffer in
            for index in hostStart..<hostEnd { buffer[index - hostStart] = HTTPSyntax.asciiLowercased(bytes[index]) }
            return hostEnd - hostStart
        }
        var port = scheme == "https" ? 443 : scheme == "http" ? 80 : -1
        if portStart < authorityEnd {
            guard authorityEnd - portStart <= 5 else { return nil }
            port = 0
            for index in portStart..<authorityEnd {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                port = port * 10 + Int(byte - UInt8(ascii: "0"))
            }
            guard port <= 65_535 else { return nil }
        }
        return HTTPOrigin(scheme: scheme, host: host, port: port)
    }

    /// Whether the scheme is `http` or `https`.
    var isHTTP: Bool { scheme == "http" || scheme == "https" }
}
