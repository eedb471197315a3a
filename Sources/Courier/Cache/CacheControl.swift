import Foundation

/// The `Cache-Control` directives Courier's cache acts on (an RFC 9111 subset), read from a
/// response's (or a request's) header fields. Unknown directives are ignored; a malformed
/// number makes its directive absent.
struct CacheControl: Equatable, Sendable {
    var noStore = false
    var noCache = false
    var mustRevalidate = false
    var maxAge: Int?
    var staleWhileRevalidate: Int?
    var staleIfError: Int?

    init(_ headers: HTTPHeaders) {
        for value in headers.values(for: "Cache-Control") {
            for directive in value.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1)
                let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
                let argument = parts.count > 1
                    ? Int(parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))) : nil
                switch name {
                case "no-store": noStore = true
                case "no-cache": noCache = true
                case "must-revalidate", "proxy-revalidate": mustRevalidate = true
                case "max-age": maxAge = argument.map { max(0, $0) }
                case "stale-while-revalidate": staleWhileRevalidate = argument.map { max(0, $0) }
                case "stale-if-error": staleIfError = argument.map { max(0, $0) }
                default: break
                }
            }
        }
    }
}
