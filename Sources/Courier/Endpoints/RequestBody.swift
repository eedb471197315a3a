import Foundation

/// What an ``Endpoint`` sends, and as what: each kind of body comes with its `Content-Type`,
/// sent unless the endpoint's headers set their own.
///
/// ```swift
/// Endpoint<User>(path: "users", method: .post, body: newUser)                    // JSON, as `.json(newUser)`
/// Endpoint<EmptyResponse>(path: "login", method: .post, body: .form(["user": "ada", "password": secret]))
/// Endpoint<EmptyResponse>(path: "avatar", method: .put, body: .data(png, contentType: "image/png"))
/// Endpoint<EmptyResponse>(path: "backups", method: .post, body: .file(archiveURL))  // streamed from disk
/// ```
///
/// | body | `Content-Type` | sent as |
/// |---|---|---|
/// | ``json(_:)`` | `application/json` | the value encoded with the client's ``JSONCoding`` |
/// | ``data(_:contentType:)`` | yours, else `application/octet-stream` | the bytes as they are |
/// | ``text(_:contentType:)`` | yours, else `text/plain; charset=utf-8` | UTF-8 |
/// | ``form(_:)`` | `application/x-www-form-urlencoded` | ``URLEncodedForm`` |
/// | ``multipart(_:)`` | `multipart/form-data; boundary=…` | ``MultipartForm``: streamed when it holds files |
/// | ``file(_:contentType:)`` | yours, else guessed from the extension | streamed from disk, never read whole |
/// | ``stream(_:contentType:)`` | yours, else `application/octet-stream` | the ``HTTPBodyStream`` |
///
/// A `Data` given where an `Encodable` is expected (`Endpoint(path:…, body: someData)`) is sent
/// as raw bytes (``data(_:contentType:)``), never as a JSON string. A streamed body cannot be
/// queued offline (only bodies in memory are stored).
public struct RequestBody: Sendable {
    /// What the body is made of.
    enum Content: Sendable {
        case json(any Encodable & Sendable)
        case bytes(Data)
        case form(URLEncodedForm)
        case multipart(MultipartForm)
        case file(URL)
        case stream(HTTPBodyStream)
    }

    /// A built body: bytes in memory, or a stream read while it is sent.
    enum Encoded: Sendable {
        case bytes(Data)
        case stream(HTTPBodyStream)
    }

    let content: Content
    /// The `Content-Type` sent with the body unless the request sets its own.
    public let contentType: String

    private init(_ content: Content, contentType: String) {
        self.content = content
        self.contentType = contentType
    }

    /// `value` encoded as JSON with the client's settings (``APIClient/Configuration``'s
    /// `json`), sent as `application/json`. A `Data` value is sent as raw bytes instead
    /// (``data(_:contentType:)``).
    public static func json(_ value: any Encodable & Sendable) -> RequestBody {
        if let data = value as? Data { return .data(data) }
        return RequestBody(.json(value), contentType: "application/json")
    }

    /// `data` as it is, sent as `contentType`.
    public static func data(_ data: Data, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(.bytes(data), contentType: contentType)
    }

    /// `text` as UTF-8, sent as `contentType` (keep its `charset=utf-8`).
    public static func text(_ text: String, contentType: String = "text/plain; charset=utf-8") -> RequestBody {
        RequestBody(.bytes(Data(text.utf8)), contentType: contentType)
    }

    /// An HTML form's fields, URL-encoded (``URLEncodedForm``), sent as
    /// `application/x-www-form-urlencoded`.
    public static func form(_ form: URLEncodedForm) -> RequestBody {
        RequestBody(.form(form), contentType: "application/x-www-form-urlencoded")
    }

    /// A `multipart/form-data` body of fields and files (``MultipartForm``), sent with its
    /// boundary in `Content-Type`. Streamed, files read while they are sent, unless its parts
    /// are all in memory and small (``MultipartForm/inMemoryLimit``).
    public static func multipart(_ form: MultipartForm) -> RequestBody {
        RequestBody(.multipart(form), contentType: form.contentType)
    }

    /// The file at `url`, read from disk while it is sent (never whole), with its size as
    /// `Content-Length` (read when the request is built, again for each attempt that resends
    /// it). `contentType` by default is the usual one for the file's extension, else
    /// `application/octet-stream`. A file that cannot be read fails the call with
    /// ``NetworkError/invalidRequest(_:)``.
    public static func file(_ url: URL, contentType: String? = nil) -> RequestBody {
        RequestBody(.file(url), contentType: contentType ?? MediaType.guess(forPathExtension: url.pathExtension))
    }

    /// Bytes a ``HTTPBodyStream`` produces while the body is sent.
    public static func stream(_ stream: HTTPBodyStream, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(.stream(stream), contentType: contentType)
    }

    /// The body to send: JSON encoded with `encoder`, forms encoded, files and large
    /// multipart forms as streams.
    /// - Throws: ``NetworkError/encodingError(underlying:)`` when the JSON value does not
    ///   encode; ``NetworkError/invalidRequest(_:)`` for a file that cannot be read or a
    ///   malformed multipart form.
    func encoded(with encoder: JSONEncoder) throws(NetworkError) -> Encoded {
        switch content {
        case .json(let value):
            do {
                return .bytes(try encoder.encode(value))
            } catch {
                throw .encodingError(underlying: error)
            }
        case .bytes(let data):
            return .bytes(data)
        case .form(let form):
            return .bytes(Data(form.encoded.utf8))
        case .multipart(let form):
            return form.fitsInMemory ? .bytes(try form.encodedData()) : .stream(try form.makeBodyStream())
        case .file(let url):
            return .stream(try .file(url))
        case .stream(let stream):
            return .stream(stream)
        }
    }
}
