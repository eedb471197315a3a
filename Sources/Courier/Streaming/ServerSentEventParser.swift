import Foundation

/// Reads a `text/event-stream` body as the HTML standard interprets one ("9.2.6 Interpreting an
/// event stream"): a pure value, fed the body's chunks as they arrive, returning the events
/// each completes. What ``ServerSentEvents`` runs on each connection; usable on its own with
/// ``APIClient/bytes(for:stallTimeout:maxBytes:)`` (a stream that must not be re-sent, such as a
/// `POST`'s answer).
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for try await chunk in bytes {
///     for event in try parser.parse(chunk) { handle(event) }
/// }
/// parser.endOfStream()
/// ```
///
/// - Lines end with CRLF, LF or CR, also when a chunk ends between the CR and the LF. One
///   byte order mark at the start of a stream is skipped. Text is UTF-8; invalid bytes
///   become U+FFFD.
/// - `data` lines accumulate, joined by LF; a blank line dispatches the event, unless no
///   `data` came (nothing is dispatched, the `event` type is forgotten). `event` sets the
///   type (`message` when none), `id` the last event ID (ignored if it contains NUL; an empty
///   one clears it), `retry` the reconnection time in milliseconds (only when all ASCII
///   digits). Lines starting with `:` are comments; other fields are ignored; a line without
///   a colon is a field with an empty value; one space after the colon is dropped.
/// - The last event ID and the reconnection time persist across events and streams;
///   ``endOfStream()`` discards an event (and a line) left incomplete.
/// - Memory is bounded: a line (its field name included) or an event's data longer than
///   ``maxEventBytes`` throws ``NetworkError/responseTooLarge(limit:)`` instead of growing.
public struct ServerSentEventParser: Sendable {
    /// The default ``maxEventBytes``: 1 MiB.
    public static let defaultMaxEventBytes = 1 << 20

    /// The longest line, and the largest event data, accepted, in bytes.
    public let maxEventBytes: Int
    /// The last event ID, as the last dispatch (a blank line) left it: what a reconnection
    /// sends as `Last-Event-ID` when it is not empty.
    public private(set) var lastEventID: String
    /// The reconnection time the stream's last valid `retry` field set, if any.
    public private(set) var reconnectionTime: Duration?

    /// The bytes of a line not yet ended (the previous chunk stopped inside it).
    private var line: [UInt8] = []
    /// The `data` values of the event in progress, each followed by LF.
    private var data: [UInt8] = []
    /// The `event` field of the event in progress; empty means `message`.
    private var eventType = ""
    /// The `id` field seen last, which becomes ``lastEventID`` at the next dispatch.
    private var idBuffer: String
    /// The `retry` of the event in progress's block, reported on the event.
    private var blockRetry: Duration?
    /// The previous chunk ended with CR: an LF first in this one ends no second line.
    private var skipsLineFeed = false
    /// No line of this stream has ended yet: the first may start with a byte order mark.
    private var atStreamStart = true

    /// Creates a parser; `lastEventID` is the ID a stream resumes from (the reconnection's
    /// `Last-Event-ID` until the server sets another).
    public init(maxEventBytes: Int = ServerSentEventParser.defaultMaxEventBytes, lastEventID: String = "") {
        self.maxEventBytes = maxEventBytes
        self.lastEventID = lastEventID
        idBuffer = lastEventID
    }

    /// Reads `chunk`, the next bytes of the stream, and returns the events it completed, in order.
    /// - Throws: ``NetworkError/responseTooLarge(limit:)`` (limit ``maxEventBytes``) for a
    ///   line or an event's data too long, the events `chunk` completed before it included;
    ///   the stream is then unreadable: feed the parser no more of it.
    public mutating func parse(_ chunk: Data) throws(NetworkError) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        let failure = chunk.withUnsafeBytes { bytes in scan(bytes, into: &events) }
        if let failure { throw failure }
        return events
    }

    /// Ends the stream: discards the incomplete line and event (never dispatched, as the
    /// standard says), keeping ``lastEventID`` and ``reconnectionTime`` for the next stream,
    /// which may again start with a byte order mark.
    public mutating func endOfStream() {
        line.removeAll()
        data.removeAll()
        eventType = ""
        idBuffer = lastEventID
        blockRetry = nil
        skipsLineFeed = false
        atStreamStart = true
    }

    // MARK: Lines

    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")
    private static let colon = UInt8(ascii: ":")
    private static let space = UInt8(ascii: " ")
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Splits `bytes` into lines, handling each ended one; keeps the unended rest in `line`.
    /// Returns the error that stopped it (a closure of `withUnsafeBytes` cannot throw typed).
    private mutating func scan(_ bytes: UnsafeRawBufferPointer, into events: inout [ServerSentEvent]) -> NetworkError? {
        var start = 0
        if skipsLineFeed, let first = bytes.first {
            skipsLineFeed = false
            if first == Self.lineFeed { start = 1 }
        }
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == Self.lineFeed || byte == Self.carriageReturn else {
                index += 1
                continue
            }
            let ended = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
            if line.isEmpty {
                if let failure = endLine(ended, into: &events) { return failure }
            } else {
                // Joined with the bytes the previous chunks left: the only copy, and only for
                // a line cut by a chunk boundary.
                guard line.count + ended.count <= maxEventBytes else { return tooLarge }
                var joined = line
                line.removeAll(keepingCapacity: true)
                joined.append(contentsOf: ended)
                let failure = joined.withUnsafeBytes { endLine($0, into: &events) }
                if let failure { return failure }
            }
            index += 1
            if byte == Self.carriageReturn {
                if index == bytes.count {
                    skipsLineFeed = true
                } else if bytes[index] == Self.lineFeed {
                    index += 1
                }
            }
            start = index
        }
        guard line.count + (bytes.count - start) <= maxEventBytes else { return tooLarge }
        line.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start...]))
        return nil
    }

    private var tooLarge: NetworkError { .responseTooLarge(limit: maxEventBytes) }

    /// Handles one line, its end of line removed.
    private mutating func endLine(_ bytes: UnsafeRawBufferPointer, into events: inout [ServerSentEvent]) -> NetworkError? {
        guard bytes.count <= maxEventBytes else { return tooLarge }
        var line = bytes
        if atStreamStart {
            atStreamStart = false
            if line.starts(with: Self.byteOrderMark) { line = UnsafeRawBufferPointer(rebasing: line[3...]) }
        }
        guard let first = line.first else {
            if let event = dispatch() { events.append(event) }
            return nil
        }
        if first == Self.colon { return nil }   // a comment (often a keep-alive)
        guard let colon = line.firstIndex(of: Self.colon) else {
            return process(field: line, value: UnsafeRawBufferPointer(start: nil, count: 0))
        }
        var valueStart = colon + 1
        if valueStart < line.count, line[valueStart] == Self.space { valueStart += 1 }
        return process(
            field: UnsafeRawBufferPointer(rebasing: line[..<colon]), value: UnsafeRawBufferPointer(rebasing: line[valueStart...]))
    }

    /// Applies one field to the event in progress.
    private mutating func process(field: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> NetworkError? {
        if field.elementsEqual("data".utf8) {
            guard data.count + value.count <= maxEventBytes else { return tooLarge }
            data.append(contentsOf: value)
            data.append(Self.lineFeed)
        } else if field.elementsEqual("event".utf8) {
            eventType = String(decoding: value, as: UTF8.self)
        } else if field.elementsEqual("id".utf8) {
            // An ID with NUL is ignored: it could not be sent back in a header.
            if !value.contains(0) { idBuffer = String(decoding: value, as: UTF8.self) }
        } else if field.elementsEqual("retry".utf8) {
            if let milliseconds = Self.milliseconds(value) {
                reconnectionTime = .milliseconds(milliseconds)
                blockRetry = reconnectionTime
            }
        }
        return nil
    }

    /// A `retry` value: ASCII digits only (no sign, no space, not empty), else `nil`; one too
    /// large for an `Int` is `nil` too.
    private static func milliseconds(_ value: UnsafeRawBufferPointer) -> Int? {
        guard !value.isEmpty else { return nil }
        var result = 0
        for byte in value {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            result = sum
        }
        return result
    }

    /// A blank line: the event in progress, if it has data; the buffers emptied either way.
    private mutating func dispatch() -> ServerSentEvent? {
        lastEventID = idBuffer
        defer {
            data.removeAll(keepingCapacity: true)
            eventType = ""
            blockRetry = nil
        }
        guard !data.isEmpty else { return nil }
        let text = String(decoding: data.dropLast(), as: UTF8.self)
        return ServerSentEvent(type: eventType.isEmpty ? "message" : eventType, data: text, id: lastEventID, retry: blockRetry)
    }
}
