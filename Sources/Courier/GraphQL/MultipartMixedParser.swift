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

    /// Adds `bytes`; returns the bodies of the parts they completed, in order.
    mutating func feed(_ bytes: Data) throws -> [Data] {
        guard !isFinished else { return [] }
        buffer.append(contentsOf: bytes)
        var bodies: [Data] = []
        while let range = firstDelimiter() {
            let part = Array(buffer[..<range.lowerBound])
            let after = range.upperBound
            // `--boundary--` closes the body; anything after it is the epilogue.
            if buffer.count >= after + 2, buffer[after] == UInt8(ascii: "-"), buffer[after + 1] == UInt8(ascii: "-") {
                isFinished = true
            } else if buffer.count < after + 2 {
                break   // cannot tell a delimiter from the closing one yet
            }
            buffer.removeFirst(after)
            if let body = Self.body(of: part) { bodies.append(body) }
            if isFinished { buffer = []; break }
        }
        if buffer.count > maxPartBytes + delimiter.count { throw PartTooLarge() }
        return bodies
    }

    /// Where the next delimiter line starts and ends (at the start of the buffer or after a
    /// line end).
    private func firstDelimiter() -> Range<Int>? {
        guard buffer.count >= delimiter.count else { return nil }
        var index = 0
        while index + delimiter.count <= buffer.count {
            let atLineStart = index == 0 || buffer[index - 1] == UInt8(ascii: "\n")
            if atLineStart, buffer[index..<index + delimiter.count].elementsEqual(delimiter) {
                return index..<index + delimiter.count
            }
            index += 1
        }
        return nil
    }

    /// A part's body: what follows its headers' blank line, without the line end before the
    /// next delimiter; `nil` for a part without that shape (a preamble, padding).
    private static func body(of part: [UInt8]) -> Data? {
        var bytes = part[...]
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
