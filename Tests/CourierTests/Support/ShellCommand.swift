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
    let (ended, report) = AsyncStream<Int32>.makeStream(bufferingPolicy: .bufferingNewest(1))
    process.terminationHandler = { report.yield($0.terminationStatus) }
    try await ChildProcesses.run(process)
    var statuses = ended.makeAsyncIterator()
    let status = await statuses.next() ?? -1
    return (status, output.fileHandleForReading.readToEndOfFile())
}
