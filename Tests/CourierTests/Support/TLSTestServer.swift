import Foundation
@testable import Courier

/// One line `tls_server.py` printed about a connection (see the script's header).
struct TLSServerEvent: Sendable, Decodable, CustomStringConvertible {
    /// `accepted` or `closed`.
    let event: String
    /// The connection's number, from 1.
    let id: Int
    /// `ok` or `failed` (closed events).
    let handshake: String?
    /// Why the connection ended, if it ended on an error (closed events).
    let error: String?
    /// Application bytes received after the handshake (closed events).
    let bytes: Int?
    /// Requests answered (closed events).
    let requests: Int?
    /// The client certificate's CN (closed events, mutual TLS).
    let client: String?

    var description: String {
        "#\(id) \(event) handshake=\(handshake ?? "-") bytes=\(bytes.map(String.init) ?? "-") "
            + "requests=\(requests.map(String.init) ?? "-") error=\(error ?? "-")"
    }
}

/// Errors of ``TLSTestServer``.
enum TLSTestServerError: Error, CustomStringConvertible {
    case scriptNotFound(String)
    case exited(String)
    case timedOut(String)

    var description: String {
        switch self {
        case .scriptNotFound(let path): "TLSTestServer: script not found at \(path)"
        case .exited(let detail): "TLSTestServer: the server exited: \(detail)"
        case .timedOut(let what): "TLSTestServer: timed out waiting for \(what)"
        }
    }
}

/// Drives `tls_server.py`: an HTTPS/1.1 server on 127.0.0.1 serving ``TestCertificates``'
/// chain, which reports each connection it saw (and how many application bytes it received)
/// on its stdout.
///
/// The process dies with the test: its stdin is a pipe held open until ``stop()`` (the server
/// exits at EOF), and `deinit` stops it too.
final class TLSTestServer: Sendable {
    /// The port on 127.0.0.1.
    let port: Int
    private let process: Process
    private let stdinPipe: Pipe
    private let log: TLSServerLog

    /// The script, next to this file.
    static var scriptPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("tls_server.py").path
    }

    private init(port: Int, process: Process, stdinPipe: Pipe, log: TLSServerLog) {
        self.port = port
        self.process = process
        self.stdinPipe = stdinPipe
        self.log = log
    }

    deinit {
        stop()
    }

    /// Starts a server with `certificates`' chain; `maximumTLS12` caps it at TLS 1.2, and
    /// `requireClientCertificate` has it require one chaining to the root (mutual TLS). Waits
    /// (up to 30 s) for its `PORT` line.
    static func start(
        _ certificates: TestCertificates, maximumTLS12: Bool = false, requireClientCertificate: Bool = false
    ) async throws -> TLSTestServer {
        let script = scriptPath
        guard FileManager.default.fileExists(atPath: script) else { throw TLSTestServerError.scriptNotFound(script) }
        var arguments = [try TestTool.python3(), "-u", script, "--cert", certificates.serverChainFile, "--key", certificates.serverKeyFile]
        if maximumTLS12 { arguments += ["--max-tls", "1.2"] }
        if requireClientCertificate { arguments += ["--client-ca", certificates.rootFile] }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let stdinPipe = Pipe()
        let stdoutPipe = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        // stderr is inherited: a traceback shows in the test log.
        try await ChildProcesses.run(process)
        let log = TLSServerLog()
        log.startReading(stdoutPipe.fileHandleForReading)
        do {
            let ready = try await log.wait(for: "its PORT line", timeout: 30) { $0.event == "port" }
            return TLSTestServer(port: ready.id, process: process, stdinPipe: stdinPipe, log: log)
        } catch {
            if process.isRunning { process.terminate() }
            try? stdinPipe.fileHandleForWriting.close()
            throw error
        }
    }

    /// `https://host:port/path`.
    func url(_ host: String = "localhost", _ path: String = "/") -> URL {
        URL(string: "https://\(host):\(port)\(path)")!
    }

    /// Every connection event so far, in the order printed.
    var events: [TLSServerEvent] { log.events }

    /// Waits (up to `timeout` seconds) until an event matching `predicate` has been printed;
    /// returns the first such event.
    func waitForEvent(
        _ what: String, timeout: Double = 30, where predicate: @escaping @Sendable (TLSServerEvent) -> Bool
    ) async throws -> TLSServerEvent {
        try await log.wait(for: what, timeout: timeout, predicate)
    }

    /// Stops the server (closes its stdin and terminates it). Idempotent.
    func stop() {
        try? stdinPipe.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
    }
}

/// Runs `body` with a fresh ``TLSTestServer`` and stops it afterwards, even when `body` throws.
func withTLSServer<T>(
    maximumTLS12: Bool = false, requireClientCertificate: Bool = false,
    _ body: (TLSTestServer, TestCertificates) async throws -> T
) async throws -> T {
    let certificates = try TestCertificates.load()
    let server = try await TLSTestServer.start(
        certificates, maximumTLS12: maximumTLS12, requireClientCertificate: requireClientCertificate)
    defer { server.stop() }
    return try await body(server, certificates)
}

/// The server's stdout, parsed as it arrives (on a thread of its own), and the tasks waiting
/// for a line.
private final class TLSServerLog: Sendable {
    private struct Waiter {
        let id: Int
        let predicate: @Sendable (TLSServerEvent) -> Bool
        let continuation: CheckedContinuation<TLSServerEvent, any Error>
    }

    private struct State {
        var events: [TLSServerEvent] = []
        var waiters: [Waiter] = []
        var nextWaiter = 0
        /// Set when stdout reached EOF or printed something that is not an event.
        var ended: String?
    }

    // Invariant: all state under the lock; a continuation is resumed once, by whoever removes
    // its waiter from `waiters` (a new event, the end of output, or the timeout).
    private let state = Locked(State())

    var events: [TLSServerEvent] { state.withLock { $0.events.filter { $0.event != "port" } } }

    func startReading(_ handle: FileHandle) {
        let thread = Thread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.readChunk()
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    receive(line)
                }
            }
            end("its output ended (it exited)")
        }
        thread.name = "TLSTestServer.stdout"
        thread.start()
    }

    private func receive(_ line: String) {
        let event: TLSServerEvent
        if line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) {
            event = TLSServerEvent(
                event: "port", id: port, handshake: nil, error: nil, bytes: nil, requests: nil, client: nil)
        } else if let decoded = try? JSONDecoder().decode(TLSServerEvent.self, from: Data(line.utf8)) {
            event = decoded
        } else {
            end("it printed \(line.debugDescription)")
            return
        }
        let ready = state.withLock { state -> [(CheckedContinuation<TLSServerEvent, any Error>)] in
            state.events.append(event)
            let matched = state.waiters.filter { $0.predicate(event) }
            state.waiters.removeAll { $0.predicate(event) }
            return matched.map(\.continuation)
        }
        for continuation in ready { continuation.resume(returning: event) }
    }

    private func end(_ reason: String) {
        let waiting = state.withLock { state -> [Waiter] in
            if state.ended == nil { state.ended = reason }
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiting { waiter.continuation.resume(throwing: TLSTestServerError.exited(reason)) }
    }

    func wait(
        for what: String, timeout: Double, _ predicate: @escaping @Sendable (TLSServerEvent) -> Bool
    ) async throws -> TLSServerEvent {
        try await withCheckedThrowingContinuation { continuation in
            enum Now { case found(TLSServerEvent), ended(String), waiting(Int) }
            let now = state.withLock { state -> Now in
                if let event = state.events.first(where: predicate) { return .found(event) }
                if let ended = state.ended { return .ended(ended) }
                state.nextWaiter += 1
                state.waiters.append(Waiter(id: state.nextWaiter, predicate: predicate, continuation: continuation))
                return .waiting(state.nextWaiter)
            }
            switch now {
            case .found(let event):
                continuation.resume(returning: event)
            case .ended(let reason):
                continuation.resume(throwing: TLSTestServerError.exited(reason))
            case .waiting(let id):
                // A deadline, not a wait for state: the line usually comes long before.
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
                    let expired = state.withLock { state -> Waiter? in
                        guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                        return state.waiters.remove(at: index)
                    }
                    expired?.continuation.resume(throwing: TLSTestServerError.timedOut(what))
                }
            }
        }
    }
}
