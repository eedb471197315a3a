#if canImport(CCurl)
import CCurl
import Foundation

/// One HTTP exchange over ``CurlTransport``: the caller's continuation, and what libcurl's
/// callbacks have received so far.
///
/// Threads: the caller makes it and hands it to the event loop; from then on libcurl's
/// callbacks and the loop read and write the response fields, on the loop's thread only. The
/// caller is answered exactly once (``TransportAnswer``), by whichever comes first: the loop (the
/// response, or the failure), or the caller's own cancellation.
final class CurlExchange: @unchecked Sendable {
    // Invariant: the `let`s are set before the exchange is shared. The response fields, the
    // body reader and `handle` are touched only on the event loop's thread (libcurl's callbacks
    // run there). The answer only under its lock (`pendingAnswer`).
    let isHead: Bool
    let limit: Int
    let maxHeaderBytes: Int
    /// Whether libcurl decodes the body (Courier asked for compressed responses).
    let decodes: Bool
    let bodyStream: HTTPBodyStream?
    /// For a streamed response: where the body goes, read by the caller as it arrives. Set
    /// before the exchange is shared.
    var stream: ResponseBodyBuffer?
    /// For a streamed response: the time the head may take, and the longest wait for the next
    /// body bytes after it (the event loop checks both).
    let headTimeout: Duration
    let stallTimeout: Duration

    /// The pooled easy handle while it is in the multi handle.
    var handle: CurlEasyHandle?
    /// The request's header fields, in libcurl's list, freed when the exchange ends.
    var headerList: UnsafeMutablePointer<curl_slist>?

    private(set) var status = 0
    private(set) var headers = HTTPHeaders()
    private(set) var body = Data()
    /// Whether any of the response has arrived (a line of its head): a connection that breaks
    /// after that broke a response, not the way to the server.
    private(set) var responseBegan = false
    /// Whether the final response's head ended (its empty line arrived). libcurl reports a
    /// connection closed in the middle of the head as success, with what it had read.
    private(set) var headEnded = false
    private var headerBytes = 0
    private var contentLength: Substring?
    /// Why a callback stopped the transfer; takes precedence over libcurl's code.
    private(set) var failure: NetworkError?
    /// A streamed response's clocks (the loop's thread): when the head must have arrived, and
    /// when body bytes last did (or the head ended, or the transfer was last un-paused).
    var headDeadline = ContinuousClock.now
    var lastBytes = ContinuousClock.now
    /// Body bytes handed to ``stream`` so far.
    private var streamed = 0
    private var reader: HTTPBodyStream.Reader?
    /// A produced body's producer (``HTTPBodyStream/chunks(_:length:reopenable:)``): made by
    /// ``startProducer()``, or again by the first read after a rewind.
    private var producer: (any PolledBody)?
    /// For a produced body: asks the loop to read the body again once the producer has bytes
    /// (set before the exchange is shared).
    var resumeSending: (@Sendable () -> Void)?
    /// Whether libcurl's sending is paused, waiting for the producer (the loop's thread).
    var sendPaused = false
    private var pending = Data()
    private var bytesRead = 0

    private let pendingAnswer = Locked(TransportAnswer())

    init(request: HTTPRequest, maxHeaderBytes: Int, decodes: Bool, headTimeout: Duration = .zero, stallTimeout: Duration = .zero) {
        self.headTimeout = headTimeout
        self.stallTimeout = stallTimeout
        isHead = request.method == .head
        limit = request.responseSizeLimit
        self.maxHeaderBytes = maxHeaderBytes
        self.decodes = decodes
        bodyStream = request.bodyStream
    }

    deinit {
        producer?.close()
    }

    // MARK: Answering the caller (any thread)

    /// Stores the caller's continuation; returns `false` (having woken it) if the exchange was
    /// already answered, e.g. cancelled before it started.
    func start(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        pendingAnswer.start(continuation)
    }

    /// Records `result` and wakes the caller unless it was answered already; returns whether
    /// this call answered it.
    @discardableResult
    func answer(_ result: Result<HTTPResponse, NetworkError>) -> Bool {
        pendingAnswer.answer(result)
    }

    /// The answer, once the caller was woken. Read under the lock it was recorded under, not
    /// handed over in the continuation: that orders what the loop's thread built before
    /// answering (a streamed body's source) before the caller reads it, as ThreadSanitizer
    /// sees it.
    func takeAnswer() -> Result<HTTPResponse, NetworkError> {
        pendingAnswer.take()
    }

    /// The transfer ended with `result`: answers the caller if the head did not already, and
    /// ends a streamed body (complete, or with the error).
    func complete(_ result: Result<HTTPResponse, NetworkError>) {
        answer(result)
        guard let stream else { return }
        switch result {
        case .success: stream.finish(nil)
        case .failure(let error): stream.finish(error)
        }
    }

    /// Whether the caller has been answered (so the transfer is no longer wanted).
    var isAnswered: Bool { pendingAnswer.withLock { $0.isAnswered } }

    // MARK: libcurl's callbacks (the loop's thread)

    /// One line of the response head, CRLF included (libcurl calls once per line, for every
    /// response: an informational 1xx one is followed by the final one; then for a chunked
    /// body's trailer fields). Returns `false` to stop the transfer, with ``failure`` set. Reads
    /// the bytes in place, with integer indices: every response's every line passes here, on
    /// the one thread all transfers share.
    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Bool {
        responseBegan = true
        // Every head counts, the 1xx ones and the trailer included: a server that sends 100
        // Continue without end is stopped like one that sends one huge head.
        headerBytes += line.count
        if headerBytes > maxHeaderBytes {
            failure = .malformedResponse("the response head is over \(maxHeaderBytes) bytes", underlying: nil)
            return false
        }
        // Trailer fields (after a chunked body) are not header fields (RFC 9110 §6.5.1).
        if headEnded { return true }
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        if end >= 5, line[0] == 0x48, line[1] == 0x54, line[2] == 0x54, line[3] == 0x50, line[4] == 0x2F { // "HTTP/"
            // A new response (after a 1xx): only the final one's fields are kept.
            guard let code = Self.statusCode(line, end: end) else {
                failure = .malformedResponse("the status line has no three-digit status code", underlying: nil)
                return false
            }
            status = code
            headers = HTTPHeaders(reservingCapacity: 16)
            contentLength = nil
            return true
        }
        if end == 0 {
            if status < 200 { return true }
            headEnded = acceptHead()
            // A streamed response is answered now: its body goes to the stream as it arrives,
            // and its stall timeout counts from here (the head had a deadline of its own).
            if headEnded, let stream {
                lastBytes = .now
                var head = response()
                head.streamedBody = ResponseBytes(source: stream)
                answer(.success(head))
            }
            return headEnded
        }
        if line[0] == 0x20 || line[0] == 0x09 {
            // An obsolete line folding (RFC 9112 §5.2): part of the previous field's value.
            guard let previous = headers.lastField else { return true }
            headers.replaceLast(value: previous.value + " " + Self.text(line, Self.trimmed(line, 0..<end)))
            return true
        }
        var colon = 0
        while colon < end, line[colon] != 0x3A { colon += 1 }
        guard colon < end else {
            failure = .malformedResponse("a response header line has no colon", underlying: nil)
            return false
        }
        let value = Self.text(line, Self.trimmed(line, (colon + 1)..<end))
        if Self.isContentLength(line, colon) {
            let length = Substring(value)
            if let contentLength, contentLength != length {
                failure = .malformedResponse("the response has two different Content-Length values", underlying: nil)
                return false
            }
            contentLength = length
        }
        headers.add(name: Self.text(line, 0..<colon), value: value)
        return true
    }

    /// The end of the final response's head: refuses a declared body over the limit before any
    /// of it arrives, and reserves room for one within it.
    private func acceptHead() -> Bool {
        guard let contentLength, !isHead, status != 204, status != 304 else { return true }
        guard !contentLength.isEmpty, contentLength.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            failure = .malformedResponse("the response's Content-Length is not a number", underlying: nil)
            return false
        }
        guard let length = Int(contentLength), length <= limit else {
            failure = .responseTooLarge(limit: limit)
            return false
        }
        if !decodes, stream == nil { body.reserveCapacity(length) }
        return true
    }

    /// Body bytes (decoded, when libcurl decodes). Returns what the write callback returns:
    /// the count taken, 0 once the limit is passed (with ``failure`` set), or
    /// `CURL_WRITEFUNC_PAUSE` when a streamed body's consumer is behind (libcurl delivers the
    /// same bytes again once un-paused, so they are not kept).
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if let stream {
            guard bytes.count <= limit - streamed else {
                failure = .responseTooLarge(limit: limit)
                return 0
            }
            guard stream.offer(bytes) else { return Int(CURL_WRITEFUNC_PAUSE) }
            streamed += bytes.count
            lastBytes = .now
            return bytes.count
        }
        if body.count + bytes.count > limit {
            failure = .responseTooLarge(limit: limit)
            body = Data()
            return 0
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    /// What ``readBody(into:)`` gave libcurl.
    enum BodyRead: Equatable {
        /// This many bytes; 0 at the body's end.
        case bytes(Int)
        /// None yet: a produced body's producer is behind. The transfer pauses until
        /// ``resumeSending`` asks the loop to go on.
        case pause
        /// Stop the exchange (``failure`` is set).
        case abort
    }

    /// Makes a produced body's producer in the caller's task, before the exchange is shared: the
    /// task that iterates its sequence then inherits the caller's task-locals, which a task
    /// started on the loop's thread would not have.
    func startProducer() throws(NetworkError) {
        guard let makeProducer = bodyStream?.makeProducer else { return }
        do {
            producer = try makeProducer()
        } catch {
            throw .encodingError(underlying: error)
        }
    }

    /// Fills `buffer` with the next bytes of the request's body stream. Bytes a reader gave
    /// beyond what fits are kept for the next call.
    func readBody(into buffer: UnsafeMutableRawBufferPointer) -> BodyRead {
        guard let bodyStream else { return .bytes(0) }
        do {
            if pending.isEmpty {
                if let makeProducer = bodyStream.makeProducer {
                    let producer = try self.producer ?? makeProducer()
                    self.producer = producer
                    switch try producer.poll(maxLength: buffer.count, wake: resumeSending ?? {}) {
                    case .bytes(let bytes): pending = bytes
                    case .end: break
                    case .later:
                        sendPaused = true
                        return .pause
                    }
                } else {
                    if reader == nil { reader = try bodyStream.makeReader() }
                    pending = try reader!(buffer.count)
                }
            }
            let count = min(pending.count, buffer.count)
            buffer.copyBytes(from: pending.prefix(count))
            pending = pending.dropFirst(count)
            bytesRead += count
            if let length = bodyStream.length, bytesRead > length || (count == 0 && bytesRead < length) {
                failure = .encodingError(underlying: HTTPBodyStream.LengthMismatch(declared: length, given: bytesRead))
                return .abort
            }
            return .bytes(count)
        } catch {
            failure = .encodingError(underlying: error)
            return .abort
        }
    }

    /// Starts the body stream again from its first byte (libcurl resends a body when a reused
    /// connection turns out to be closed); `false` for a stream read once that was begun.
    func rewindBody() -> Bool {
        // Nothing was taken from the body yet: it still starts from its first byte.
        if bytesRead == 0, pending.isEmpty { return true }
        if reader != nil || producer != nil, bodyStream?.isReopenable == false { return false }
        producer?.close()
        producer = nil
        reader = nil
        // The closed producer will not wake the loop: the loop un-pauses the send itself.
        if sendPaused { resumeSending?() }
        pending = Data()
        bytesRead = 0
        return true
    }

    /// The response once libcurl is done, without the fields that describe an encoding it has
    /// undone.
    func response() -> HTTPResponse {
        var headers = headers
        // (A HEAD, 204 or 304 has no body that was decoded: its fields describe the resource.)
        if decodes, !isHead, status != 204, status != 304,
           let encoding = headers["Content-Encoding"], !HTTPSyntax.equalsIgnoringASCIICase(encoding, "identity") {
            headers.remove(name: "Content-Encoding")
            headers.remove(name: "Content-Length")
        }
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    // MARK: Parsing

    private static func statusCode(_ line: UnsafeRawBufferPointer, end: Int) -> Int? {
        var index = 5
        while index < end, line[index] != 0x20 { index += 1 }
        guard index + 3 < end else { return nil }
        var code = 0
        for offset in 1...3 {
            let byte = line[index + offset]
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            code = code * 10 + Int(byte - 0x30)
        }
        return index + 4 == end || line[index + 4] == 0x20 ? code : nil
    }

    /// Whether the field name `line[0..<colon]` is `Content-Length`, ignoring ASCII case.
    private static func isContentLength(_ line: UnsafeRawBufferPointer, _ colon: Int) -> Bool {
        let name: StaticString = "content-length"
        guard colon == name.utf8CodeUnitCount else { return false }
        let expected = name.utf8Start
        for index in 0..<colon where HTTPSyntax.asciiLowercased(line[index]) != expected[index] { return false }
        return true
    }

    private static func trimmed(_ line: UnsafeRawBufferPointer, _ range: Range<Int>) -> Range<Int> {
        var (start, end) = (range.lowerBound, range.upperBound)
        while start < end, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        while end > start, line[end - 1] == 0x20 || line[end - 1] == 0x09 { end -= 1 }
        return start..<end
    }

    /// Header bytes as text: UTF-8, with any byte that is not replaced by U+FFFD (so a field
    /// in Latin-1 still arrives, readable).
    private static func text(_ line: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: line[range]), as: UTF8.self)
    }
}
#endif
