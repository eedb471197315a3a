import Foundation

/// The file a download writes, written on a serial queue of its own so that neither a slow
/// disk nor the final `fsync` holds a thread of Swift's cooperative pool. Chunks gather in one
/// of two buffers of ``flushSize`` bytes, reused for the whole download; a full buffer goes to
/// the file while the other gathers, so receiving and writing overlap (one batch in flight).
/// Memory per download stays within the two buffers (their pages are touched only as filled).
/// After a write fails, nothing more is written: bytes after a gap would make a kept partial
/// file resume from the wrong place.
final class DownloadFile: @unchecked Sendable {
    /// The bytes gathered before a write.
    static let flushSize = 1 << 20

    // Invariant: `handle` is used only on `queue`. `buffers`, `current`, `filled`, `writing`
    // and `failed` are used by the one task that owns this writer (append/finish/close are never
    // called concurrently); `queue` reads the buffer that is not `current` while `writing`
    // runs, and the task gathers into it again only after awaiting `writing`.
    private let handle: FileHandle
    private let queue = DispatchQueue(label: "Courier.DownloadFile")
    private let buffers: [UnsafeMutableRawBufferPointer]
    private var current = 0
    private var filled = 0
    /// The write of the other buffer, while in flight.
    private var writing: Task<Void, any Error>?
    /// Whether a write has failed.
    private var failed = false

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
        buffers = (0..<2).map { _ in .allocate(byteCount: Self.flushSize, alignment: 16) }
    }

    /// Adds `chunk`; writes what has gathered each time the buffer is full.
    func append(_ chunk: Data) async throws {
        var copied = 0
        while copied < chunk.count {
            let count = min(chunk.count - copied, Self.flushSize - filled)
            chunk.withUnsafeBytes { bytes in
                UnsafeMutableRawBufferPointer(rebasing: buffers[current][filled..<(filled + count)])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[copied..<(copied + count)]))
            }
            filled += count
            copied += count
            if filled == Self.flushSize { try await flush(synchronizing: false) }
        }
    }

    /// Writes what has gathered and makes the file durable (`fsync`).
    func finish() async throws {
        try await flush(synchronizing: true)
    }

    /// Writes what has gathered (kept bytes on disk stay resumable), then closes the file.
    func close() async {
        if !failed { try? await flush(synchronizing: false) }
        try? await writing?.value
        writing = nil
        try? await run { try self.handle.close() }
    }

    /// Starts the write of the current buffer once the one before it has ended (its error, if
    /// any, is thrown here), and gathers into the other; with `synchronizing`, waits for the
    /// write and `fsync`s.
    private func flush(synchronizing: Bool) async throws {
        let previous = writing
        writing = nil
        do {
            try await previous?.value
        } catch {
            failed = true
            throw error
        }
        let (index, count) = (current, filled)
        current ^= 1
        filled = 0
        let write = Task {
            try await self.run {
                if count > 0 { try self.handle.write(contentsOf: Data(bytesNoCopy: self.buffers[index].baseAddress!, count: count, deallocator: .none)) }
                if synchronizing { try self.handle.synchronize() }
            }
        }
        guard synchronizing else {
            writing = write
            return
        }
        do {
            try await write.value
        } catch {
            failed = true
            throw error
        }
    }

    private func run(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    deinit {
        for buffer in buffers { buffer.deallocate() }
    }
}
