import Foundation

/// Builds request URLs from a base URL, a literal path and query items — a pure function, with
/// no state and no configuration.
///
/// It exists because the obvious tools each get an edge wrong for an HTTP client: string
/// concatenation lets `?`, `#`, `/` or `..` in user data rewrite the URL; `appending(path:)`
/// passes `..` through and encodes differently across platforms and Foundation versions; and
/// `URLComponents.queryItems` leaves `+` unencoded in values, which most servers then decode
/// as a space.
///
/// ```swift
/// let base = URL(string: "https://api.example.com/v1/")!
/// let url = try URLBuilder.url(base: base, path: "users/José Ñ/posts",
///                              query: [URLQueryItem(name: "q", value: "a+b & c")])
/// // https://api.example.com/v1/users/Jos%C3%A9%20%C3%91/posts?q=a%2Bb%20%26%20c
/// ```
enum URLBuilder {
    /// Returns `base` with `path` appended to its path and `query` appended to its query.
    ///
    /// **Base.** Must be an absolute `http` or `https` URL (scheme compared ignoring case) with a
    /// non-empty host, and no fragment (not even an empty `#`). It may have a path prefix
    /// (`https://h/api` and `https://h/api/` are equivalent) and a query, which is kept as is,
    /// before the new items. The base is otherwise used exactly as written.
    ///
    /// **Path.** Literal text, never pre-encoded: `%` means a percent sign.
    /// - It is split on `/`; leading and repeated slashes are ignored (empty segments are
    ///   dropped), and the segments are joined to the base path with exactly one `/`, whatever
    ///   slashes the base ends with. A trailing slash in `path` is kept (`"users/"` →
    ///   `…/users/`), since some servers route `/users/` and `/users` differently.
    /// - Each segment is percent-encoded as UTF-8. Only RFC 3986 unreserved characters
    ///   (`A–Z a–z 0–9 - . _ ~`) and the sub-delimiters `! $ & ' ( ) * , =` are left as they are;
    ///   everything else is encoded — space, `?`, `#`, `%`, `:`, `@`, non-ASCII — and so are the
    ///   sub-delimiters `+` (S3 and other servers decode `+` in paths as a space) and `;` (Java
    ///   servers read it as the start of path parameters). So `users/a b?x` → `/users/a%20b%3Fx`.
    /// - A segment that is exactly `.` or `..` throws ``NetworkError/invalidURL(_:)``: a server
    ///   or proxy would resolve it and escape the base's path prefix, so it is never sent or
    ///   resolved silently.
    /// - A control character anywhere (C0 including CR, LF and NUL, DEL or C1) throws
    ///   ``NetworkError/invalidURL(_:)``: it is never a legitimate part of a path.
    /// - An empty path, or one made only of slashes, leaves the base's path as it is.
    ///
    /// **Query.** Each item becomes `name=value`, names and values percent-encoded with only
    /// the unreserved characters left as they are — `+`, `&`, `=`, `;`, space and non-ASCII are
    /// all encoded, so `a+b` arrives as `a+b`, not `a b`. A nil value gives `name` alone; an
    /// empty value gives `name=`. Items are joined with `&` in the given order, after the base's
    /// own query if it has one. No items adds nothing (no lone `?`).
    ///
    /// The result is parsed with `URL(string:)`; if that fails, this throws
    /// ``NetworkError/invalidURL(_:)`` rather than crashing. Error messages never include the
    /// base's query, which may carry credentials.
    static func url(base: URL, path: String, query: [URLQueryItem] = []) throws(NetworkError) -> URL {
        try url(base: base, segments: segments(of: path), trailingSlash: path.utf8.last == UInt8(ascii: "/"), query: query)
    }

    /// Returns `base` with `segments` appended to its path, each percent-encoded whole (so a
    /// `/` inside a segment becomes `%2F`), a `/` at the end if `trailingSlash`, and `query`.
    /// A segment that is empty, `.` or `..`, or holds a control character, throws
    /// ``NetworkError/invalidURL(_:)``. Otherwise as ``url(base:path:query:)``.
    static func url(base: URL, segments: [String], trailingSlash: Bool = false, query: [URLQueryItem] = []) throws(NetworkError) -> URL {
        try Base(base).url(segments: segments, trailingSlash: trailingSlash, query: query)
    }

    /// A base URL checked and split once, so that building each request's URL does not parse
    /// the base again (a client builds every request from the same base).
    final class Base: Sendable {
        /// "scheme://authority/path" as written (used when no segment is added).
        let path: String
        /// The same without trailing slashes (segments are joined to it with one slash).
        let prefix: String
        /// The base's own query, without the "?".
        let query: String?
        /// The base's origin: every URL built under the base has it.
        let origin: HTTPOrigin?

        /// Checks `base` as ``URLBuilder/url(base:path:query:)`` describes.
        init(_ base: URL) throws(NetworkError) {
            let base = base.absoluteURL
            try HTTPSyntax.requireHTTPURL(base, named: "the base URL")
            let text = base.absoluteString
            guard base.fragment == nil, !text.utf8.contains(UInt8(ascii: "#")) else {
                throw .invalidURL("base URL must not have a fragment")
            }
            var beforeQuery = text[...]
            if let mark = text.firstIndex(of: "?") {
                beforeQuery = text[..<mark]
                query = String(text[text.index(after: mark)...])
            } else {
                query = nil
            }
            path = String(beforeQuery)
            origin = HTTPOrigin(text)
            while beforeQuery.last == "/" { beforeQuery.removeLast() }
            prefix = String(beforeQuery)
        }

        /// The URL of `segments` (and a trailing slash) and `query` under this base.
        func url(segments: [String], trailingSlash: Bool = false, query items: [URLQueryItem] = []) throws(NetworkError) -> URL {
            try URLBuilder.parse(text(segments: segments, trailingSlash: trailingSlash, query: items))
        }

        /// The text of that URL, before Foundation parses it: what a fresh cache hit is looked up
        /// by, without paying for the parse.
        func text(segments: [String], trailingSlash: Bool = false, query items: [URLQueryItem] = []) throws(NetworkError) -> String {
            // The usual case, plain segments and no query, in one pass and one allocation.
            if !segments.isEmpty, items.isEmpty, query == nil {
                var length = prefix.utf8.count + (trailingSlash ? 1 : 0)
                var plain = true
                for segment in segments where plain {
                    plain = try URLBuilder.isPlain(segment)
                    length += 1 + segment.utf8.count
                }
                if plain { return URLBuilder.joined(prefix, segments, trailingSlash: trailingSlash, length: length) }
            }
            // Otherwise the bytes are gathered in an array and made a string once: appending to a
            // string piece by piece costs a capacity check and copy per piece.
            let start = segments.isEmpty ? path : prefix
            // Room for the usual case (no encoding), so the appends below do not regrow it.
            var length = start.utf8.count + segments.count + (trailingSlash ? 1 : 0) + 1 + (query?.utf8.count ?? 0)
            for segment in segments { length += segment.utf8.count }
            for item in items { length += item.name.utf8.count + (item.value?.utf8.count ?? 0) + 2 }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(length)
            bytes.append(contentsOf: start.utf8)
            try URLBuilder.append(segments, to: &bytes, trailingSlash: trailingSlash)
            URLBuilder.appendQuery(to: &bytes, base: query, items: items)
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// `text`, built by ``Base/text(segments:trailingSlash:query:)``, as a `URL`.
    static func parse(_ text: String) throws(NetworkError) -> URL {
        guard let url = URL(string: text) else {
            throw .invalidURL("the built URL could not be parsed")
        }
        return url
    }

    // MARK: - Implementation

    /// Percent-encodes every byte of `text` for which `isAllowed` is false (as `%XX`, uppercase
    /// hex) and appends the result to `output`; `spaceAsPlus`: a space is written `+`, as a
    /// form body writes it (``URLEncodedForm``).
    static func appendPercentEncoded(
        _ text: String, to output: inout [UInt8], allowing isAllowed: (UInt8) -> Bool, spaceAsPlus: Bool = false
    ) {
        for byte in text.utf8 {
            if isAllowed(byte) {
                output.append(byte)
            } else if spaceAsPlus, byte == UInt8(ascii: " ") {
                output.append(UInt8(ascii: "+"))
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigit(byte >> 4))
                output.append(hexDigit(byte & 0x0F))
            }
        }
    }

    /// The uppercase hex digit of `nibble` (0–15), as ASCII.
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }

    /// RFC 3986 `unreserved`: ALPHA, DIGIT, `-`, `.`, `_`, `~`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// What a path segment may contain unencoded: unreserved, plus the sub-delimiters that no
    /// common server or library treats specially in a path (`+` and `;` excluded, see above).
    private static func isAllowedInSegment(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: ","),
             UInt8(ascii: "="):
            return true
        default:
            return isUnreserved(byte)
        }
    }

    /// Appends `segments` to `result` (a base without trailing slashes), each percent-encoded
    /// whole, following the path rules of ``url(base:path:query:)``.
    fileprivate static func append(_ segments: [String], to result: inout [UInt8], trailingSlash: Bool) throws(NetworkError) {
        for segment in segments {
            let plain = try isPlain(segment)
            result.append(UInt8(ascii: "/"))
            if plain {
                result.append(contentsOf: segment.utf8)
            } else {
                appendPercentEncoded(segment, to: &result, allowing: isAllowedInSegment)
            }
        }
        if trailingSlash, !segments.isEmpty { result.append(UInt8(ascii: "/")) }
    }

    /// Whether `segment` goes into a path as it is (no byte needs percent-encoding). Throws
    /// ``NetworkError/invalidURL(_:)`` for a segment that is empty, `.` or `..`, or holds a
    /// control character.
    fileprivate static func isPlain(_ segment: String) throws(NetworkError) -> Bool {
        // One pass over the bytes: refuse a control character, and see whether the segment
        // needs any encoding at all (most do not).
        let scan = segment.withUTF8Bytes { bytes -> (control: Unicode.Scalar?, plain: Bool) in
            var plain = true
            for index in 0..<bytes.count {
                let byte = bytes[index]
                if byte < 0x20 || byte == 0x7F { return (Unicode.Scalar(byte), false) }
                // C1 controls (U+0080–U+009F) are 0xC2 0x80–0x9F in UTF-8.
                if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) {
                    return (Unicode.Scalar(bytes[index + 1]), false)
                }
                if plain, !isAllowedInSegment(byte) { plain = false }
            }
            return (nil, plain)
        }
        if let control = scan.control {
            let code = String(control.value, radix: 16, uppercase: true)
            let padded = String(repeating: "0", count: max(0, 4 - code.count)) + code
            throw .invalidURL("path contains the control character U+\(padded)")
        }
        if segment.isEmpty { throw .invalidURL("path has an empty segment") }
        if segment == "." || segment == ".." {
            throw .invalidURL("path contains a \".\" or \"..\" segment, which would escape the base URL's path")
        }
        return scan.plain
    }

    /// `prefix`, then "/" and each segment, then "/" if `trailingSlash`: `length` bytes, written
    /// in one pass into one allocation.
    fileprivate static func joined(_ prefix: String, _ segments: [String], trailingSlash: Bool, length: Int) -> String {
        String(unsafeUninitializedCapacity: length) { buffer in
            var end = copy(prefix, into: buffer, at: 0)
            for segment in segments {
                buffer[end] = UInt8(ascii: "/")
                end = copy(segment, into: buffer, at: end + 1)
            }
            if trailingSlash {
                buffer[end] = UInt8(ascii: "/")
                end += 1
            }
            return end
        }
    }

    /// Copies `text`'s UTF-8 into `buffer` from `start`; returns where it ended.
    private static func copy(_ text: String, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) -> Int {
        text.withUTF8Bytes { bytes in
            _ = UnsafeMutableBufferPointer(rebasing: buffer[start...]).initialize(fromContentsOf: bytes)
            return start + bytes.count
        }
    }

    /// The segments of a textual path: split on the byte "/" (not the Character: "/" followed
    /// by a combining mark is one Character but still a slash to a server), empty ones dropped.
    static func segments(of path: String) -> [String] {
        path.utf8.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Appends the query items (and the base's own query) to `result`.
    fileprivate static func appendQuery(to result: inout [UInt8], base: String?, items: [URLQueryItem]) {
        guard !items.isEmpty else {
            if let base {
                result.append(UInt8(ascii: "?"))
                result.append(contentsOf: base.utf8)
            }
            return
        }
        result.append(UInt8(ascii: "?"))
        if let base, !base.isEmpty {
            result.append(contentsOf: base.utf8)
            if base.utf8.last != UInt8(ascii: "&") { result.append(UInt8(ascii: "&")) }
        }
        for (index, item) in items.enumerated() {
            if index > 0 { result.append(UInt8(ascii: "&")) }
            appendPercentEncoded(item.name, to: &result, allowing: isUnreserved)
            if let value = item.value {
                result.append(UInt8(ascii: "="))
                appendPercentEncoded(value, to: &result, allowing: isUnreserved)
            }
        }
    }
}
