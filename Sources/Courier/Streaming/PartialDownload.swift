import Foundation

/// Where a download's body goes until it is complete: a temporary file beside the
/// destination, moved onto it only at the end. A resumable one has a fixed name
/// (`.<name>.partial`) and a record beside it (`.<name>.partial.json`) of the URL and the
/// validator its bytes came with, so that the next download to the same destination asks for
/// the rest (`Range` from the bytes on disk, `If-Range` with the validator) instead of the
/// whole.
struct PartialDownload: Sendable {
    /// What a resumable partial file's bytes are: which URL, under which validator.
    struct Record: Codable, Equatable {
        let url: String
        /// A strong `ETag`, else `Last-Modified`: what `If-Range` sends back.
        let validator: String
    }

    /// Where the bytes go.
    let file: URL
    /// Where the record goes (a resumable download only).
    let recordFile: URL?

    /// A temporary file of its own for one download to `destination`, never resumed.
    static func single(for destination: URL) -> PartialDownload {
        let directory = destination.deletingLastPathComponent()
        let name = ".\(destination.lastPathComponent).\(UUID().uuidString).download"
        return PartialDownload(file: directory.appendingPathComponent(name), recordFile: nil)
    }

    /// The resumable partial file of `destination` (two downloads to one destination at once
    /// share it: don't).
    static func resumable(for destination: URL) -> PartialDownload {
        let directory = destination.deletingLastPathComponent()
        let name = ".\(destination.lastPathComponent).partial"
        return PartialDownload(
            file: directory.appendingPathComponent(name), recordFile: directory.appendingPathComponent(name + ".json"))
    }

    /// The bytes on disk and their validator, when they were downloaded from `url` and can be
    /// resumed; `nil` otherwise (nothing kept, another URL, an unreadable record).
    func resumePoint(for url: URL) -> (offset: Int, validator: String)? {
        guard let recordFile, let data = FileManager.default.contents(atPath: recordFile.path),
              let record = try? JSONDecoder().decode(Record.self, from: data), record.url == url.absoluteString,
              let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber,
              size.intValue > 0
        else { return nil }
        return (size.intValue, record.validator)
    }

    /// Records that the bytes about to be written come from `url` under `validator`, or
    /// removes the record when there is no validator (the bytes could not be resumed).
    func record(url: URL, validator: String?) throws {
        guard let recordFile else { return }
        guard let validator else {
            try? FileManager.default.removeItem(at: recordFile)
            return
        }
        try JSONEncoder().encode(Record(url: url.absoluteString, validator: validator)).write(to: recordFile, options: .atomic)
    }

    /// Whether the bytes on disk are worth keeping after a failure: a resumable download
    /// whose record was written.
    var isKept: Bool {
        recordFile.map { FileManager.default.fileExists(atPath: $0.path) } ?? false
    }

    /// Moves the complete file onto `destination` (replacing it at once, never seen half
    /// written) and removes the record.
    func complete(at destination: URL) throws {
        guard rename(file.path, destination.path) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        if let recordFile { try? FileManager.default.removeItem(at: recordFile) }
    }

    /// Removes the file and its record.
    func discard() {
        try? FileManager.default.removeItem(at: file)
        if let recordFile { try? FileManager.default.removeItem(at: recordFile) }
    }

    /// What `If-Range` can send back for `response` (RFC 9110 §13.1.5): a strong `ETag` (any
    /// but a `W/` one: some servers leave out the quotes); without an `ETag`, a `Last-Modified`
    /// that is a strong validator (at least 60 s before the response's `Date`, §8.8.2.2);
    /// `nil` otherwise (its bytes cannot be resumed safely).
    static func validator(of response: HTTPResponse) -> String? {
        if let tag = response.headers["ETag"]?.trimmingCharacters(in: .whitespaces), !tag.isEmpty {
            return tag.hasPrefix("W/") ? nil : tag
        }
        guard let modified = response.headers["Last-Modified"], let modifiedAt = HTTPDate.parse(modified),
              let sent = response.headers["Date"].flatMap(HTTPDate.parse), sent.timeIntervalSince(modifiedAt) >= 60
        else { return nil }
        return modified
    }

    /// A 206's `Content-Range` (`bytes 100-199/200`, or `…/*` when the size is unknown).
    static func contentRange(of response: HTTPResponse) -> (start: Int, end: Int, complete: Int?)? {
        guard let value = response.headers["Content-Range"]?.trimmingCharacters(in: .whitespaces),
              value.lowercased().hasPrefix("bytes ")
        else { return nil }
        // Digits only: `Int` would take a sign.
        func number(_ text: Substring) -> Int? { !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) } ? Int(text) : nil }
        let parts = value.dropFirst(6).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = number(bounds[0]), let end = number(bounds[1]), end >= start else { return nil }
        if parts[1] == "*" { return (start, end, nil) }
        guard let complete = number(parts[1]), complete > end else { return nil }
        return (start, end, complete)
    }
}
