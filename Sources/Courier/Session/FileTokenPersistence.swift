import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps the tokens in a JSON file that only its owner can read (mode 0600 from the moment it is
/// created). Writes are atomic: a new file is written beside the old one, flushed to disk, and
/// renamed over it, then the directory is flushed, so a crash at any point leaves either the
/// old file or the new one, never a torn one.
public struct FileTokenPersistence: TokenPersistence {
    /// The file's location. Its directory must exist.
    public let url: URL

    /// A persistence in the file at `url`.
    public init(url: URL) {
        self.url = url
    }

    /// Why the file could not be used. The descriptions never quote its content.
    public enum Failure: Error, CustomStringConvertible, Sendable {
        /// The file exists but is not the JSON this type writes.
        case corrupt(path: String)
        /// A system call failed; `errno` says why.
        case system(call: String, path: String, errno: Int32)

        /// What failed, with the path and the system's reason.
        public var description: String {
            switch self {
            case .corrupt(let path): "token file \(path) is corrupt"
            case .system(let call, let path, let code): "\(call) \(path): \(String(cString: strerror(code)))"
            }
        }
    }

    /// The saved tokens; `nil` if the file does not exist.
    /// - Throws: ``Failure`` if it exists but cannot be read or decoded.
    public func load() throws -> Tokens? {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return nil
        } catch {
            throw Failure.system(call: "read", path: url.path, errno: errno == 0 ? EIO : errno)
        }
        guard let tokens = try? JSONDecoder().decode(Tokens.self, from: data) else { throw Failure.corrupt(path: url.path) }
        return tokens
    }

    /// Writes `tokens` atomically (temporary file, `fsync`, `rename`, directory `fsync`).
    public func save(_ tokens: Tokens) throws {
        let data = try JSONEncoder().encode(tokens)
        let temporary = url.path + ".tmp-\(getpid())-\(UInt32.random(in: .min ... .max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure.system(call: "open", path: temporary, errno: errno) }
        var written = 0
        let failure: Failure? = data.withUnsafeBytes { bytes in
            while written < bytes.count {
                let result = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return .system(call: "write", path: temporary, errno: errno)
                }
                written += result
            }
            return fsync(descriptor) == 0 ? nil : .system(call: "fsync", path: temporary, errno: errno)
        }
        close(descriptor)
        if let failure {
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, url.path) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure.system(call: "rename", path: url.path, errno: code)
        }
        syncDirectory()
    }

    /// Deletes the file (a missing file is fine).
    public func remove() throws {
        guard unlink(url.path) == 0 || errno == ENOENT else { throw Failure.system(call: "unlink", path: url.path, errno: errno) }
        syncDirectory()
    }

    /// Makes the rename or unlink itself durable.
    private func syncDirectory() {
        let directory = open(url.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        guard directory >= 0 else { return }
        _ = fsync(directory)
        close(directory)
    }
}
