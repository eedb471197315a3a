import Foundation

/// The file a download writes, written on a serial queue of its own so that neither a slow
/// disk nor the final `fsync` holds a thread of Swift's cooperative pool: chunks gather in
/// memory up to ``flushSize`` and go to the file a batch at a time, one batch in flight.
final class DownloadFile: @unchecked Sendable {
    /// The bytes gathered before a write (memory per download stays within about twice this).
    static let flushSize = 1 << 20

    // Invariant: `handle` is used only on `queue`; `gathered` only by the one task that owns
    // this writer (append/finish are never called concurrently).
    private let handle: FileHandle
    private let queue = DispatchQueue(label: "Courier.DownloadFile")
    private var gathered = Data()

    /// Where file-system work of downloads that is not a download's own writing runs (a
    /// partial file's record, its renaming and removal): off the cooperative pool.
    private static let fileSystem = DispatchQueue(label: "Courier.DownloadFile.fileSystem")

    /// Runs `work` on a thread of its own (never the cooperative pool) and returns its result.
    static func perform<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            fileSystem.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Runs `work`, which cannot fail, off the cooperative pool.
    static func perform<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            fileSystem.async { continuation.resume(returning: work()) }
        }
    }

    /// Opens `url` for writing (created if missing), cut to `offset` bytes, writing from there;
    /// the opening runs off the cooperative pool.
    static func open(url: URL, from offset: Int) async throws -> DownloadFile {
        try await perform { try DownloadFile(url: url, from: offset) }
    }

    /// Opens `url` for writing (created if missing), cut to `offset` bytes, writing from there.
    private init(url: URL, from offset: Int) throws {
        if !FileManager.default.fileExists(atPath: url.path) {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
        }
        handle = try FileHandle(forWritingTo: url)
        do {
            try handle.truncate(atOffset: UInt64(offset))
            try handle.seek(toOffset: UInt64(offset))
        } catch {
            try? handle.close()
            throw error
        }
    }

    /// Adds `chunk`; writes what has gathered once it reaches ``flushSize``.
    func append(_ chunk: Data) async throws {
        gathered.append(chunk)
        if gathered.count >= Self.flushSize { try await flush(synchronizing: false) }
    }

    /// Writes what has gathered and makes the file durable (`fsync`).
    func finish() async throws {
        try await flush(synchronizing: true)
    }

    /// Writes what has gathered (kept bytes on disk stay resumable), then closes the file.
    func close() async {
        try? await flush(synchronizing: false)
        try? await run { try self.handle.close() }
    }

    private func flush(synchronizing: Bool) async throws {
        let batch = gathered
        gathered = Data()
        try await run {
            if !batch.isEmpty { try self.handle.write(contentsOf: batch) }
            if synchronizing { try self.handle.synchronize() }
        }
    }

    private func run(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
