import Foundation

/// A `multipart/form-data` body (RFC 7578; what an HTML form with a file input sends): text
/// fields and files, from memory, from disk, or from a stream, in order. Send it with
/// ``RequestBody/multipart(_:)``.
///
/// ```swift
/// var form = MultipartForm()
/// form.append(name: "title", value: "Holiday")
/// form.append(name: "thumbnail", data: png, filename: "thumb.png", contentType: "image/png")
/// form.append(name: "video", fileAt: URL(fileURLWithPath: "/tmp/holiday.mp4"))   // video/mp4, read while sent
/// ```
///
/// A file from disk is never read whole: the body streams (``HTTPBodyStream``), reading each
/// file as it is sent, with a `Content-Length` whenever every part's length is known (a file's
/// is its size when the request is built). A form whose parts are all in memory and together
/// small (up to ``inMemoryLimit``) is sent as bytes instead, so that it can be queued offline
/// and logged like any body.
///
/// Encoded as the WHATWG HTML Standard's multipart/form-data encoding does: a name and a filename
/// go in quotes as UTF-8, with `"` written `%22`, CR `%0D` and LF `%0A`; line breaks in a name or
/// a text value are sent as CRLF. The boundary is random unless you give one.
public struct MultipartForm: Sendable {
    /// Where a part's bytes come from.
    enum Content: Sendable {
        case data(Data)
        case file(URL)
        case stream(HTTPBodyStream)
    }

    /// One part: its header lines (encoded, ending with the empty line), then its content.
    struct Part: Sendable {
        let header: Data
        let content: Content
        /// The content type given for the part, checked when the body is built.
        let contentType: String?
    }

    /// The delimiter between parts (in the body as `--boundary`), also sent in `Content-Type`.
    public let boundary: String
    /// The parts, in order.
    private(set) var parts: [Part] = []

    /// The largest form of parts in memory only sent as bytes rather than streamed: 1 MiB.
    public static let inMemoryLimit = 1024 * 1024

    /// An empty form with a random boundary (`courier-` and 32 random letters and digits).
    public init() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        boundary = "courier-" + String((0..<32).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
    }

    /// An empty form with the given boundary (RFC 2046: 1 to 70 of letters, digits and
    /// `'()+_,-./:=?` or space, not ending with a space; checked when the body is built). It
    /// must not occur in any part; a random one (``init()``) never does in practice.
    public init(boundary: String) {
        self.boundary = boundary
    }

    /// The `Content-Type` a body of this form is sent with: `multipart/form-data; boundary=…`.
    public var contentType: String {
        let isToken = HTTPSyntax.isToken(boundary)
        return "multipart/form-data; boundary=" + (isToken ? boundary : "\"\(boundary)\"")
    }

    // MARK: Adding parts

    /// Adds a text field (sent as UTF-8, without a content type, as a browser sends one).
    public mutating func append(name: String, value: String) {
        parts.append(Part(header: Self.header(name: name, filename: nil, contentType: nil),
                          content: .data(Data(Self.normalizingNewlines(value).utf8)), contentType: nil))
    }

    /// Adds bytes from memory: a file when `filename` is given (its `contentType`, by default
    /// `application/octet-stream`), else a field (with `contentType` when given).
    public mutating func append(name: String, data: Data, filename: String? = nil, contentType: String? = nil) {
        let type = contentType ?? (filename == nil ? nil : MediaType.octetStream)
        parts.append(Part(header: Self.header(name: name, filename: filename, contentType: type),
                          content: .data(data), contentType: type))
    }

    /// Adds the file at `url`, read from disk while the body is sent (never whole), named
    /// `filename` (by default the file's own name), of `contentType` (by default the usual one
    /// for its extension, else `application/octet-stream`). A file that cannot be read fails
    /// the call with ``NetworkError/invalidRequest(_:)`` when the request is built.
    public mutating func append(name: String, fileAt url: URL, filename: String? = nil, contentType: String? = nil) {
        let type = contentType ?? MediaType.guess(forPathExtension: url.pathExtension)
        parts.append(Part(header: Self.header(name: name, filename: filename ?? url.lastPathComponent, contentType: type),
                          content: .file(url), contentType: type))
    }

    /// Adds a file whose bytes `stream` produces while the body is sent. A stream of unknown
    /// length makes the whole body's length unknown (sent chunked).
    public mutating func append(
        name: String, stream: HTTPBodyStream, filename: String, contentType: String = "application/octet-stream"
    ) {
        parts.append(Part(header: Self.header(name: name, filename: filename, contentType: contentType),
                          content: .stream(stream), contentType: contentType))
    }

    // MARK: Encoding

    /// Whether every part is in memory and the whole body small enough to send as bytes.
    var fitsInMemory: Bool {
        var total = 0
        for part in parts {
            guard case .data(let data) = part.content else { return false }
            total += part.header.count + data.count
            if total > Self.inMemoryLimit { return false }
        }
        return true
    }

    /// The whole body in memory (for a form whose parts all are).
    func encodedData() throws(NetworkError) -> Data {
        try validate()
        var body = Data()
        for part in parts {
            body.append(delimiter)
            body.append(part.header)
            if case .data(let data) = part.content { body.append(data) }
            body.append(Self.crlf)
        }
        body.append(closeDelimiter)
        return body
    }

    /// The body as a stream: the parts' readers one after another, with the bytes between them.
    /// Each file's size is read now (its length counts in the total); its bytes while sent.
    /// Throws ``NetworkError/invalidRequest(_:)`` for a file that cannot be read, a bad
    /// boundary or content type.
    public func makeBodyStream() throws(NetworkError) -> HTTPBodyStream {
        try validate()
        var streams: [HTTPBodyStream] = []
        var pending = Data()
        for part in parts {
            pending.append(delimiter)
            pending.append(part.header)
            switch part.content {
            case .data(let data):
                pending.append(data)
            case .file(let url):
                streams.append(.data(pending))
                pending = Data()
                streams.append(try .file(url))
            case .stream(let stream):
                streams.append(.data(pending))
                pending = Data()
                streams.append(stream)
            }
            pending.append(Self.crlf)
        }
        pending.append(closeDelimiter)
        streams.append(.data(pending))
        return .concatenating(streams)
    }

    /// Checks the boundary and every part's content type.
    private func validate() throws(NetworkError) {
        let boundaryBytes = Array(boundary.utf8)
        guard (1...70).contains(boundaryBytes.count), boundaryBytes.last != UInt8(ascii: " "),
              boundaryBytes.allSatisfy(Self.isBoundaryByte)
        else {
            throw .invalidRequest("multipart boundary \(HTTPSyntax.quotedForMessage(boundary)) is not 1 to 70 of letters, digits and '()+_,-./:=? or space")
        }
        for part in parts {
            if let type = part.contentType, type.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
                throw .invalidRequest("multipart content type \(HTTPSyntax.quotedForMessage(type)) contains a control character")
            }
        }
    }

    private static func isBoundaryByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "'()+_,-./:=? ".utf8.contains(byte)
        }
    }

    private static let crlf = Data("\r\n".utf8)
    private var delimiter: Data { Data("--\(boundary)\r\n".utf8) }
    private var closeDelimiter: Data { Data("--\(boundary)--\r\n".utf8) }

    /// A part's header lines and the empty line after them.
    private static func header(name: String, filename: String?, contentType: String?) -> Data {
        var text = "Content-Disposition: form-data; name=\"\(escape(normalizingNewlines(name)))\""
        if let filename { text += "; filename=\"\(escape(filename))\"" }
        text += "\r\n"
        if let contentType { text += "Content-Type: \(contentType)\r\n" }
        text += "\r\n"
        return Data(text.utf8)
    }

    /// A name or filename as it goes between quotes: `"` as `%22`, CR as `%0D`, LF as `%0A`
    /// (WHATWG), everything else as it is (UTF-8).
    static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "%22"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// `text` with every CR not followed by LF, and every LF not after a CR, made CRLF (what the
    /// WHATWG encoding does to names and text values).
    static func normalizingNewlines(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) else { return text }
        var result = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\r":
                if previousWasCR { result.append("\n") }
                result.append("\r")
                previousWasCR = true
                continue
            case "\n":
                if !previousWasCR { result.append("\r") }
                result.append("\n")
            default:
                if previousWasCR { result.append("\n") }
                result.append(scalar)
            }
            previousWasCR = false
        }
        if previousWasCR { result.append("\n") }
        return String(result)
    }
}
