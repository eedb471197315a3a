import Foundation

/// Runs `script` with `/bin/sh -c` and returns its exit status and standard output, waiting
/// for it without blocking a thread of the cooperative pool (the process's termination handler
/// resumes the caller).
func runShell(_ script: String) async throws -> (status: Int32, output: Data) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", script]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.standardError
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
        process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
        do {
            try process.run()
        } catch {
            process.terminationHandler = nil
            continuation.resume(throwing: error)
        }
    }
    return (status, output.fileHandleForReading.readToEndOfFile())
}
