#if os(Linux)
import Foundation
import Glibc
@testable import Courier

/// A port on 127.0.0.1 that nothing listened on a moment ago: bound to port 0, read, closed.
/// Something else may take it before the caller does; a caller that binds it retries on
/// "address in use".
func unusedLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw NginxServerError.failed("socket: errno \(errno)") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
            bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
        }
    }
    guard bound else { throw NginxServerError.failed("bind/getsockname: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Errors of ``NginxServer``.
enum NginxServerError: Error, CustomStringConvertible {
    case failed(String)

    var description: String {
        switch self {
        case .failed(let reason): "NginxServer: \(reason)"
        }
    }
}

/// Debian's nginx (`nginx-light`: ssl and http_v2), started by a test with a generated
/// configuration in a temporary directory, answering every request with
/// `$server_protocol $connection` (the protocol the request arrived in, and the serial number
/// of the connection it arrived on):
/// - ``httpsPort``: TLS with ``TestCertificates``' chain, HTTP/2 offered by ALPN;
/// - ``httpPort``: cleartext HTTP/1.1.
///
/// It runs in the foreground (`daemon off`) as a child process with one worker; ``stop()``
/// terminates the master (which ends its worker) and waits for it. Without nginx on `PATH` the
/// test is skipped (``TestTool/unavailable(_:)``; a failure under `COURIER_REQUIRE_TEST_TOOLS=1`).
final class NginxServer: Sendable {
    let httpsPort: Int
    let httpPort: Int
    let directory: String
    private let process: Process

    /// The nginx binary: `$NGINX`, or `nginx` on `PATH`; skips the test when there is none.
    static func executable() throws -> String {
        try TestTool.require(
            ProcessInfo.processInfo.environment["NGINX"] ?? "nginx",
            install: "Debian: apt-get install nginx-light, or set NGINX to its path")
    }

    private init(httpsPort: Int, httpPort: Int, directory: String, process: Process) {
        self.httpsPort = httpsPort
        self.httpPort = httpPort
        self.directory = directory
        self.process = process
    }

    deinit {
        stop()
    }

    /// Starts nginx and waits (up to 30 s) until it says it has started its worker (its
    /// listening sockets are open by then). Tries new ports if the chosen ones were taken.
    static func start(_ certificates: TestCertificates) async throws -> NginxServer {
        let executable = try executable()
        var lastFailure = ""
        attempts: for _ in 0..<3 {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("courier-nginx-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
            let httpsPort = try unusedLoopbackPort()
            var httpPort = try unusedLoopbackPort()
            while httpPort == httpsPort { httpPort = try unusedLoopbackPort() }
            let configuration = """
                daemon off;
                master_process on;
                worker_processes 1;
                user root;
                pid \(directory)/nginx.pid;
                error_log stderr notice;
                events { worker_connections 256; }
                http {
                    access_log off;
                    client_body_temp_path \(directory)/body;
                    proxy_temp_path \(directory)/proxy;
                    fastcgi_temp_path \(directory)/fastcgi;
                    uwsgi_temp_path \(directory)/uwsgi;
                    scgi_temp_path \(directory)/scgi;
                    keepalive_requests 10000;
                    http2_max_concurrent_streams 128;
                    server {
                        listen 127.0.0.1:\(httpsPort) ssl http2;
                        listen 127.0.0.1:\(httpPort);
                        server_name localhost;
                        ssl_certificate \(certificates.serverChainFile);
                        ssl_certificate_key \(certificates.serverKeyFile);
                        default_type text/plain;
                        location / { return 200 "$server_protocol $connection\\n"; }
                    }
                }

                """
            try configuration.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)

            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["-p", directory, "-c", directory + "/nginx.conf", "-e", "stderr"]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            let stderr = Pipe()
            process.standardError = stderr
            try await ChildProcesses.run(process)
            switch await readiness(stderr.fileHandleForReading, process: process) {
            case .ready:
                return NginxServer(httpsPort: httpsPort, httpPort: httpPort, directory: directory, process: process)
            case .failed(let output):
                if process.isRunning { process.terminate() }
                process.waitUntilExit()
                try? FileManager.default.removeItem(atPath: directory)
                lastFailure = output
                // Someone took a port between our check and nginx's bind: try others.
                guard output.contains("Address already in use") else { break attempts }
            }
        }
        throw NginxServerError.failed("nginx did not start: \(lastFailure)")
    }

    private enum Readiness: Sendable {
        case ready
        case failed(String)
    }

    /// Reads nginx's stderr on a thread of its own until it logs that it started its worker
    /// (ready), exits (failed, with what it said), or 30 s pass. Keeps draining stderr after
    /// that, so nginx never blocks on a full pipe.
    private static func readiness(_ handle: FileHandle, process: Process) async -> Readiness {
        await withCheckedContinuation { (continuation: CheckedContinuation<Readiness, Never>) in
            let once = Locked<CheckedContinuation<Readiness, Never>?>(continuation)
            @Sendable func answer(_ readiness: Readiness) {
                once.withLock { pending in
                    defer { pending = nil }
                    return pending
                }?.resume(returning: readiness)
            }
            let reader = Thread {
                var output = ""
                var answered = false
                while true {
                    let chunk = handle.readChunk()
                    if chunk.isEmpty { break }
                    guard !answered else { continue }
                    output += String(decoding: chunk, as: UTF8.self)
                    if output.contains("start worker process") {
                        answered = true
                        answer(.ready)
                    }
                }
                if !answered { answer(.failed(output.isEmpty ? "it exited saying nothing" : output)) }
            }
            reader.name = "NginxServer.stderr"
            reader.start()
            DispatchQueue.global().asyncAfter(deadline: .now() + 30) {
                answer(.failed("no \"start worker process\" notice within 30 s"))
            }
        }
    }

    /// Terminates nginx (its master ends its worker before exiting), waits until it has
    /// exited, and removes its directory. Returns the processes of it still alive afterwards
    /// (master or workers; none, normally). Idempotent.
    @discardableResult
    func stop() -> [Int32] {
        let master = process.processIdentifier
        let workers = Self.children(of: master)
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
        return ([master] + workers).filter(Self.isNginx)
    }

    /// The processes whose parent is `parent` (from `/proc/PID/stat`).
    private static func children(of parent: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = Int32(entry),
                  let stat = FileManager.default.contents(atPath: "/proc/\(entry)/stat")
            else { return nil }
            // `pid (comm) state ppid …`: the fields after the last ')'.
            let text = String(decoding: stat, as: UTF8.self)
            guard let close = text.lastIndex(of: ")") else { return nil }
            let fields = text[text.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == parent ? pid : nil
        }
    }

    /// Whether `pid` is alive and an nginx process (not a reaped one's reused number).
    private static func isNginx(_ pid: Int32) -> Bool {
        guard let commandLine = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        return String(decoding: commandLine, as: UTF8.self).contains("nginx")
    }
}

/// Runs `body` with a fresh nginx, stopping it afterwards even when `body` throws, and checks
/// that no nginx process of it is left.
func withNginx<T>(_ body: (NginxServer, TestCertificates) async throws -> T) async throws -> T {
    let certificates = try TestCertificates.load()
    let nginx = try await NginxServer.start(certificates)
    let result: T
    do {
        result = try await body(nginx, certificates)
    } catch {
        nginx.stop()
        throw error
    }
    let left = nginx.stop()
    guard left.isEmpty else {
        throw NginxServerError.failed("nginx processes \(left) outlived stop()")
    }
    return result
}
#endif
