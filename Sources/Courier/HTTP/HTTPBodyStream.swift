import Foundation

/// A request body that the transport reads piece by piece while it sends, instead of holding it
/// whole in memory: a file, or bytes produced as they are needed.
///
/// Set it as ``HTTPRequest/bodyStream`` (instead of ``HTTPRequest/body``). The transport asks
/// ``makeReader`` for a fresh reader at the start of every attempt (and again if it must send
/// the body from the start once more), then calls that reader on a thread of its own, never on
/// Swift's cooperative pool, until it returns an empty `Data`. A reader may block briefly (a
/// local file read) but must not wait on a task or on the network: ``CurlTransport`` calls it
/// on its one event-loop thread, where a reader that blocks for long holds up every other
/// exchange of that transport. A body whose source waits is an async sequence's
/// (``chunks(_:length:reopenable:)``), which the transfer waits for without a thread.
///
/// ```swift
/// request.bodyStream = try .file(URL(fileURLWithPath: "/var/backups/day.tar"))
/// ```
public struct HTTPBodyStream: Sendable {
    /// Reads up to the given number of bytes; an empty result ends the body. A thrown error
    /// ends the exchange with ``NetworkError/encodingError(underlying:)``.
    public typealias Reader = (_ maxLength: Int) throws -> Data

    /// The body's length in bytes when known: sent as `Content-Length`, and a reader that ends
    /// early or goes on past it fails the exchange. `nil` sends the body chunked (HTTP/1.1).
    public let length: Int?
    /// A stream whose readers gave another number of bytes than ``length`` declared (the cause
    /// of the ``NetworkError/encodingError(underlying:)`` a transport throws).
    public struct LengthMismatch: Error, Sendable, CustomStringConvertible {
        /// The declared length.
        public let declared: Int
        /// What the readers gave, as far as the transport read.
        public let given: Int

        /// `the body stream gave 5 bytes, not the 10 it declared`.
        public var description: String { "the body stream gave \(given) bytes, not the \(declared) it declared" }
    }

    /// Makes a reader positioned at the body's first byte.
    public let makeReader: @Sendable () throws -> Reader
    /// Whether ``makeReader`` can start the body again (a file, bytes in memory): only such a
    /// body is sent again, for a retry, a 401's renewal or a 307/308 redirect. A stream read
    /// once (``init(length:readingOnce:)``) is sent at most once: those end the call instead.
    public let isReopenable: Bool

    /// A body of `length` bytes (or unknown length, `nil`) produced by the readers `makeReader`
    /// returns, each from the first byte: the body can be sent again.
    public init(length: Int?, makeReader: @escaping @Sendable () throws -> Reader) {
        self.init(length: length, isReopenable: true, makeReader: makeReader)
    }

    /// A body of `length` bytes (or `nil`) that only `reader` can produce, once: a pipe, a
    /// socket, a generator. Never sent twice (``isReopenable`` is `false`): a retry, a 401's
    /// renewal or a 307/308 redirect that would need it again ends the call with
    /// ``NetworkError/invalidRequest(_:)`` or the response that asked for it.
    public init(length: Int?, readingOnce reader: sending @escaping Reader) {
        let once = SingleReader(reader)
        self.init(length: length, isReopenable: false) { try once.take() }
    }

    /// For a body an async sequence produces (``chunks(_:length:reopenable:)``), or one that
    /// contains such a body (``concatenating(_:)``): makes what a transport that must not wait
    /// on its thread polls instead of calling a reader (``makeReader`` waits for it). `nil` for
    /// every other body.
    let makeProducer: (@Sendable () throws -> any PolledBody)?

    init(length: Int?, isReopenable: Bool, makeReader: @escaping @Sendable () throws -> Reader) {
        self.length = length
        self.isReopenable = isReopenable
        self.makeReader = makeReader
        makeProducer = nil
    }

    init(length: Int?, isReopenable: Bool, makeProducer: @escaping @Sendable () throws -> any PolledBody) {
        self.length = length
        self.isReopenable = isReopenable
        self.makeProducer = makeProducer
        makeReader = { try makeProducer().blockingReader() }
    }

    /// A body that `chunks` produces as it goes, for a source that waits: the network, another
    /// task, a generator with a pace of its own. A task of its own iterates `chunks` into a
    /// bounded buffer (it waits, suspended, while 256 KiB are unread), and ``CurlTransport``
    /// pauses the transfer while the buffer is empty instead of waiting on its event loop's
    /// thread. An error the sequence throws ends the exchange with
    /// ``NetworkError/encodingError(underlying:)``. The transports start that task in the
    /// sending task, when the request is handed to them, so the sequence sees its task-locals
    /// (as a part of ``concatenating(_:)``, it is started once the parts before it are read,
    /// without them); a call cancelled before it is sent may have read part of a sequence.
    ///
    /// ```swift
    /// request.bodyStream = .chunks(recorder.segments, length: nil)
    /// ```
    /// - Parameters:
    ///   - chunks: the body's bytes, in order; iterated by a task of Courier's.
    ///   - length: the body's length in bytes when known; `nil` sends it chunked (HTTP/1.1).
    ///   - reopenable: whether iterating `chunks` again gives the body again from its first
    ///     byte; only then is it sent again (for a retry, a 401's renewal, a 307/308 redirect).
    ///     Default `false`: it is iterated, and sent, at most once.
    public static func chunks<Chunks: AsyncSequence & Sendable>(
        _ chunks: Chunks, length: Int?, reopenable: Bool = false
    ) -> HTTPBodyStream where Chunks.Element == Data {
        let begun = Locked(false)
        return HTTPBodyStream(length: length, isReopenable: reopenable) {
            if !reopenable, begun.withLock({ begun in defer { begun = true }; return begun }) { throw AlreadyRead() }
            return BodyProducer(chunks)
        }
    }

    /// The error of a second ``makeReader`` call on a stream that can be read once.
    public struct AlreadyRead: Error, Sendable, CustomStringConvertible {
        /// `the body stream can be read only once, and it was`.
        public var description: String { "the body stream can be read only once, and it was" }
    }

    /// The reader of a stream read once, handed out once.
    private final class SingleReader: @unchecked Sendable {
        // Invariant: `reader` is read and cleared under `lock`, once; whoever took it is its
        // only user from then on.
        private let lock = Lock()
        private var reader: Reader?

        init(_ reader: sending @escaping Reader) { self.reader = reader }

        func take() throws -> Reader {
            guard let reader = lock.withLock({ () -> Reader? in defer { self.reader = nil }; return self.reader }) else {
                throw AlreadyRead()
            }
            return reader
        }
    }

    /// This body, reporting the bytes its readers give to `reporter` (from 0 again each time it
    /// is read from the start).
    func reportingProgress(to reporter: ProgressReporter) -> HTTPBodyStream {
        if let makeProducer {
            return HTTPBodyStream(length: length, isReopenable: isReopenable) {
                let body = try makeProducer()
                reporter.restart()
                return ProgressReportingBody(body, reporter: reporter)
            }
        }
        return HTTPBodyStream(length: length, isReopenable: isReopenable) {
            let reader = try makeReader()
            reporter.restart()
            return { maxLength in
                let data = try reader(maxLength)
                if data.isEmpty { reporter.finish() } else { reporter.advance(by: data.count) }
                return data
            }
        }
    }

    /// The bytes of `data`, read from memory (for tests and small bodies).
    public static func data(_ data: Data) -> HTTPBodyStream {
        HTTPBodyStream(length: data.count) {
            var offset = data.startIndex
            return { maxLength in
                let end = data.index(offset, offsetBy: min(maxLength, data.endIndex - offset))
                defer { offset = end }
                return data[offset..<end]
            }
        }
    }

    /// The contents of the file at `url`, read as they are sent; the length is the file's size
    /// when the stream is made. Throws ``NetworkError/invalidRequest(_:)`` if the file cannot be
    /// read.
    public static func file(_ url: URL) throws(NetworkError) -> HTTPBodyStream {
        let size: Int
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            guard (attributes[.type] as? FileAttributeType) == .typeRegular else {
                throw NetworkError.invalidRequest("the body file \(url.lastPathComponent) is not a regular file")
            }
            size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        } catch let error as NetworkError {
            throw error
        } catch {
            throw .invalidRequest("the body file \(url.lastPathComponent) cannot be read: \(error.localizedDescription)")
        }
        return HTTPBodyStream(length: size) {
            let file = try FileHandle(forReadingFrom: url)
            return { maxLength in
                let data = try file.read(upToCount: maxLength) ?? Data()
                if data.isEmpty { try? file.close() }
                return data
            }
        }
    }
}
