import Foundation

/// Splits a `multipart/mixed` body, fed as it arrives, into its parts' bodies (GraphQL's
/// multipart subscriptions): each part is headers, a blank line and a body, between lines
/// `--<boundary>`; `--<boundary>--` ends the body. What comes before the first delimiter is
/// taken as a part too when it has the shape of one (some servers leave the first delimiter
/// out). A pure value type: bytes in, part bodies out.
struct MultipartMixedParser {
    /// A part whose delimiter has not come after this many bytes is refused (the stream is
    /// garbled or hostile), instead of growing without bound.
    let maxPartBytes: Int
    private let delimiter: [UInt8]
    private var buffer: [UInt8] = []
    /// Where the next part starts in ``buffer`` (the bytes before it are taken).
    private var start = 0
    /// Where the search for the next delimiter resumes.
    private var searched = 0
    /// Whether the closing delimiter came.
    private(set) var isFinished = false

    /// The error of a part larger than ``maxPartBytes``.
    struct PartTooLarge: Error {}

    init(boundary: String, maxPartBytes: Int = 1 << 20) {
        delimiter = Array("--\(boundary)".utf8)
        self.maxPartBytes = maxPartBytes
    }

    /// The boundary a `Content-Type` names (`multipart/mixed; boundary="graphql"`), `-` when it
    /// names none (Apollo's default).
    static func boundary(inContentType contentType: String) -> String {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if let comma = value.firstIndex(of: ",") { value = String(value[..<comma]) }   // `…;subscriptionSpec=1.0,application/json`
            return value.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return "-"
    }

    /// Adds `bytes`; returns the bodies of the parts they completed, in order. Linear in the
    /// bytes fed: parts are taken from a read position, and the bytes before it dropped once
    /// per call; the search for a delimiter resumes where the last one stopped.
    mutating func feed(_ bytes: Data) throws -> [Data] {
        guard !isFinished else { return [] }
        buffer.append(contentsOf: bytes)
        var bodies: [Data] = []
        while let range = nextDelimiter() {
            let after = range.upperBound
            // `--boundary--` closes the body; anything after it is the epilogue.
            guard buffer.count >= after + 2 else { break }   // cannot tell a delimiter from the closing one yet
            isFinished = buffer[after] == UInt8(ascii: "-") && buffer[after + 1] == UInt8(ascii: "-")
            if let body = Self.body(of: buffer[start..<range.lowerBound]) { bodies.append(body) }
            start = after
            searched = after
            if isFinished { break }
        }
        if isFinished {
            buffer = []
            (start, searched) = (0, 0)
        } else {
            buffer.removeFirst(start)
            searched -= start
            start = 0
        }
        if buffer.count > maxPartBytes + delimiter.count { throw PartTooLarge() }
        return bodies
    }

    /// Where the next delimiter line (at a line start) lies at or after ``start``, searching
    /// from where the last search stopped; `nil` when the buffer holds none yet.
    private mutating func nextDelimiter() -> Range<Int>? {
        var index = max(searched, start)
        while index + delimiter.count <= buffer.count {
            let atLineStart = index == start || buffer[index - 1] == UInt8(ascii: "\n")
            if atLineStart, buffer[index] == delimiter[0], buffer[index..<index + delimiter.count].elementsEqual(delimiter) {
                return index..<index + delimiter.count
            }
            index += 1
        }
        // A delimiter may begin in the last bytes: look at them again when more come.
        searched = max(start, buffer.count - delimiter.count + 1)
        return nil
    }

    /// A part's body: what follows its headers' blank line, without the line end before the
    /// next delimiter; `nil` for a part without that shape (a preamble, padding).
    private static func body(of part: ArraySlice<UInt8>) -> Data? {
        var bytes = part
        // The line end that ended the last delimiter (a delimiter may carry padding before it).
        while bytes.first == UInt8(ascii: " ") || bytes.first == UInt8(ascii: "\t") { bytes = bytes.dropFirst() }
        if bytes.starts(with: [13, 10]) { bytes = bytes.dropFirst(2) } else if bytes.first == 10 { bytes = bytes.dropFirst() }
        // No headers: the blank line comes first.
        if bytes.starts(with: [13, 10]) || bytes.first == 10 { bytes = [13, 10] + bytes }
        let separators: [[UInt8]] = [[13, 10, 13, 10], [10, 10]]
        for separator in separators {
            if let start = firstIndex(of: separator, in: bytes) {
                var body = bytes[(start + separator.count)...]
                while let last = body.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { body = body.dropLast() }
                return Data(body)
            }
        }
        return nil
    }

    private static func firstIndex(of needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        while index + needle.count <= haystack.endIndex {
            if haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
