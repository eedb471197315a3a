import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starting child processes and reading their pipes, robust to what the suite's many children
/// and sockets do: Foundation's `availableData` and `readDataToEndOfFile()` crash the whole test
/// process on a read a signal interrupted (`EINTR`, from a child's `SIGCHLD`), and on Linux
/// `Process.run()` lists `/proc/self/fd` with a `readdir` whose entry it copies whole, reading
/// past glibc's 32 KiB directory buffer once some 1,360 descriptors are open (a crash when that
/// buffer ends a mapping). The suite's parallel tests can hold that many.
enum ChildProcesses {
    /// Under the count at which the listing fills the directory buffer.
    private static let safeDescriptorCount = 1_200

    /// `process.run()` once fewer than ``safeDescriptorCount`` descriptors are open (waiting,
    /// without holding a thread, at most a minute for the other tests to close theirs).
    static func run(_ process: Process) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        while openDescriptors() >= safeDescriptorCount, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try process.run()
    }

    /// How many descriptors this process has open (entries of `/proc/self/fd`, names unread).
    private static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while readdir(directory) != nil { count += 1 }
        return count
    }
}

extension FileHandle {
    /// What one `read` returns (blocking until there is some), retried when a signal interrupts
    /// it; empty at the end of the file or on an error.
    func readChunk() -> Data {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = Glibc.read(fileDescriptor, &buffer, buffer.count)
            if count >= 0 { return Data(buffer[..<count]) }
            if errno != EINTR { return Data() }
        }
    }

    /// Everything up to the end of the file, reads a signal interrupted retried.
    func readToEndOfFile() -> Data {
        var all = Data()
        while true {
            let chunk = readChunk()
            if chunk.isEmpty { return all }
            all.append(chunk)
        }
    }
}
