import Foundation

extension HTTPResponse {
    /// A body that is not text in the charset its `Content-Type` names (or UTF-8), or names a
    /// charset Courier does not know: the cause of the ``NetworkError/decodingError(underlying:bodyPrefix:)``
    /// that ``text()`` throws.
    public struct UndecodableText: Error, Sendable, CustomStringConvertible {
        /// The charset label the body was read in (`utf-8` when the response named none).
        public let charset: String
        /// Whether Courier knows the charset at all.
        public let isKnownCharset: Bool

        /// `the body is not valid iso-8859-2 text` or `unknown charset "x-foo"`.
        public var description: String {
            isKnownCharset ? "the body is not valid \(charset) text" : "unknown charset \(charset.debugDescription)"
        }
    }

    /// The body as text, in the `charset` its `Content-Type` names (WHATWG labels: `utf-8`,
    /// `iso-8859-1`, `windows-1252`, `utf-16`, `shift_jis`, …), UTF-8 when it names none; a
    /// UTF-8 byte order mark is dropped. What ``APIClient/send(_:)`` returns for an
    /// `Endpoint<String>`.
    /// - Throws: ``NetworkError/decodingError(underlying:bodyPrefix:)`` (with
    ///   ``UndecodableText``) for bytes that are not text in that charset, or a charset it does
    ///   not know.
    public func text() throws(NetworkError) -> String {
        let label = headers["Content-Type"].flatMap { MediaType.parameter("charset", of: $0) } ?? "utf-8"
        guard let encoding = MediaType.encoding(forCharset: label) else {
            throw .decodingError(underlying: UndecodableText(charset: label, isKnownCharset: false), bodyPrefix: Self.prefix(of: body))
        }
        if encoding == .utf8 {
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            let bytes = body.starts(with: bom) ? body.dropFirst(3) : body[...]
            // Strict (nil for invalid bytes), where `String(decoding:as:)` would replace them.
            if let text = String(data: Data(bytes), encoding: .utf8) { return text }
        } else if let text = String(data: body, encoding: encoding) {
            return text
        }
        throw .decodingError(underlying: UndecodableText(charset: label, isKnownCharset: true), bodyPrefix: Self.prefix(of: body))
    }

    /// The first 256 bytes of `body` as text (invalid UTF-8 replaced), `…` after them when
    /// there is more: what a ``NetworkError/decodingError(underlying:bodyPrefix:)`` shows.
    @usableFromInline
    static func prefix(of body: Data) -> String {
        let head = body.prefix(256)
        let text = String(decoding: head, as: UTF8.self)
        return body.count > head.count ? text + "…" : text
    }
}
