import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Resumable downloads and progress, against the scripted server and httpbin.
@Suite(.serialized, .timeLimit(.minutes(5))) struct APIClientDownloadTests {
    private static let half = 256 << 10
    private static let whole = 512 << 10

    /// A 200 that declares the whole body and sends only its first half, with `headers`.
    private static func cutShort(headers: [String: String]) -> ScriptedResponse {
        .streamed(StreamSpec(chunks: 4, chunkSize: 64 << 10, pattern: true, declared: whole), headers: headers)
    }

    @Test("a resumed download asks for the rest (Range from the kept bytes, If-Range with the ETag) and the file is whole")
    func resumesWithRangeAndIfRange() async throws {
        try await withScriptedServer { server in
            try await server.script("/file", [
                Self.cutShort(headers: ["ETag": "\"v1\""]),
                .data(206, patternBytes(from: Self.half, count: Self.whole - Self.half),
                      headers: ["ETag": "\"v1\"", "Content-Range": "bytes \(Self.half)-\(Self.whole - 1)/\(Self.whole)"]),
            ])
            let api = client(server.baseURL, retryPolicy: .never)
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let destination = directory.appendingPathComponent("file.bin")
            await #expect(throws: NetworkError.self) {
                try await api.download(Endpoint<Data>(path: "file"), to: destination, maxBytes: 1 << 20, resumable: true)
            }
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            let kept = directory.appendingPathComponent(".file.bin.partial")
            #expect(try Data(contentsOf: kept) == patternBytes(from: 0, count: Self.half))

            let progress = Locked<[TransferProgress]>([])
            let response = try await api.download(
                Endpoint<Data>(path: "file", options: RequestOptions(downloadProgress: { report in progress.withLock { $0.append(report) } })),
                to: destination, maxBytes: 1 << 20, resumable: true)
            #expect(response.status == 206)
            #expect(try Data(contentsOf: destination) == patternBytes(from: 0, count: Self.whole))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["file.bin"])
            let sent = try await server.requests(path: "/file")
            #expect(sent.count == 2)
            #expect(sent.first?.header("Range") == nil)
            #expect(sent.last?.header("Range") == "bytes=\(Self.half)-")
            #expect(sent.last?.header("If-Range") == "\"v1\"")
            #expect(sent.last?.header("Accept-Encoding") == "identity")
            // Progress counts the kept bytes: it starts past them and ends at the whole.
            let reports = progress.withLock { $0 }
            #expect(reports.first.map { $0.completedBytes > Int64(Self.half) } == true)
            #expect(reports.last == TransferProgress(completedBytes: Int64(Self.whole), totalBytes: Int64(Self.whole)))
            #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
            await api.shutdown()
        }
    }

    @Test("a 200 to a resumed download (the resource changed) starts the file again from its first byte")
    func aFullAnswerRestarts() async throws {
        try await withScriptedServer { server in
            try await server.script("/file", [
                Self.cutShort(headers: ["Last-Modified": "Tue, 24 Nov 2026 10:00:00 GMT"]),
                .streamed(StreamSpec(chunks: 8, chunkSize: 64 << 10, pattern: true), headers: ["ETag": "\"v2\""]),
            ])
            let api = client(server.baseURL, retryPolicy: .never)
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let destination = directory.appendingPathComponent("file.bin")
            _ = try? await api.download(Endpoint<Data>(path: "file"), to: destination, maxBytes: 1 << 20, resumable: true)
            let response = try await api.download(Endpoint<Data>(path: "file"), to: destination, maxBytes: 1 << 20, resumable: true)
            #expect(response.status == 200)
            #expect(try Data(contentsOf: destination) == patternBytes(from: 0, count: Self.whole))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["file.bin"])
            let sent = try await server.requests(path: "/file")
            #expect(sent.last?.header("If-Range") == "Tue, 24 Nov 2026 10:00:00 GMT")
            await api.shutdown()
        }
    }

    @Test("a 416 drops the kept bytes and downloads the whole; a 206 at another offset is refused and nothing is kept")
    func unsatisfiableAndMisplacedRanges() async throws {
        try await withScriptedServer { server in
            try await server.script("/file", [
                Self.cutShort(headers: ["ETag": "\"v1\""]),
                .data(416, Data(), headers: ["Content-Range": "bytes */100"]),
                .streamed(StreamSpec(chunks: 8, chunkSize: 64 << 10, pattern: true), headers: ["ETag": "\"v1\""]),
            ])
            try await server.script("/other", [
                Self.cutShort(headers: ["ETag": "\"v1\""]),
                .data(206, Data(count: 10), headers: ["Content-Range": "bytes 0-9/\(Self.whole)"]),
            ])
            let api = client(server.baseURL, retryPolicy: .never)
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let destination = directory.appendingPathComponent("file.bin")
            _ = try? await api.download(Endpoint<Data>(path: "file"), to: destination, maxBytes: 1 << 20, resumable: true)
            try await api.download(Endpoint<Data>(path: "file"), to: destination, maxBytes: 1 << 20, resumable: true)
            #expect(try Data(contentsOf: destination) == patternBytes(from: 0, count: Self.whole))
            let sent = try await server.requests(path: "/file").map { $0.header("Range") }
            #expect(sent == [nil, "bytes=\(Self.half)-", nil])

            let other = directory.appendingPathComponent("other.bin")
            _ = try? await api.download(Endpoint<Data>(path: "other"), to: other, maxBytes: 1 << 20, resumable: true)
            do {
                try await api.download(Endpoint<Data>(path: "other"), to: other, maxBytes: 1 << 20, resumable: true)
                Issue.record("a 206 from the wrong offset was written")
            } catch {
                guard case .invalidResponse? = error as? NetworkError else { Issue.record("got \(error)"); return }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["file.bin"])
            await api.shutdown()
        }
    }

    @Test("bytes without a validator are not kept: a resumable download of them leaves nothing behind")
    func noValidatorNothingKept() async throws {
        try await withScriptedServer { server in
            try await server.script("/file", [Self.cutShort(headers: [:])])
            let api = client(server.baseURL, retryPolicy: .never)
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            await #expect(throws: NetworkError.self) {
                try await api.download(Endpoint<Data>(path: "file"), to: directory.appendingPathComponent("f"), maxBytes: 1 << 20, resumable: true)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            await api.shutdown()
        }
    }

    @Test("a weak ETag, or a Last-Modified too close to the response's Date, is no validator: nothing is kept")
    func weakValidatorsAreNotKept() async throws {
        try await withScriptedServer { server in
            try await server.script("/weak", [Self.cutShort(headers: ["ETag": "W/\"v1\""])])
            try await server.script("/recent", [Self.cutShort(headers: ["Last-Modified": HTTPDateFormat.now()])])
            let api = client(server.baseURL, retryPolicy: .never)
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            for path in ["weak", "recent"] {
                await #expect(throws: NetworkError.self) {
                    try await api.download(Endpoint<Data>(path: path), to: directory.appendingPathComponent(path), maxBytes: 1 << 20, resumable: true)
                }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            await api.shutdown()
        }
    }

    @Test("a chunked 206 that ends before its Content-Range's end is not moved into place")
    func chunkedRangeEndingEarly() async throws {
        try await withScriptedServer { server in
            var short = ScriptedResponse.chunked(1000, status: 206)
            short.headers = ["ETag": "\"v1\"", "Content-Range": "bytes \(Self.half)-\(Self.whole - 1)/\(Self.whole)"]
            try await server.script("/file", [Self.cutShort(headers: ["ETag": "\"v1\""]), short])
            let api = client(server.baseURL, retryPolicy: .never)
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let destination = directory.appendingPathComponent("file.bin")
            _ = try? await api.download(Endpoint<Data>(path: "file"), to: destination, maxBytes: 1 << 20, resumable: true)
            do {
                try await api.download(Endpoint<Data>(path: "file"), to: destination, maxBytes: 1 << 20, resumable: true)
                Issue.record("a short body was moved into place")
            } catch {
                guard case .malformedResponse? = error as? NetworkError else { Issue.record("got \(error)"); return }
            }
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            await api.shutdown()
        }
    }

    @Test("httpbin's /range: a download cancelled mid-body resumes where it stopped; every byte is the server's")
    func resumesAgainstHTTPBin() async throws {
        try await withHTTPBin { httpbin in
            let size = 100 * 1024
            let expected = Data((0..<size).map { UInt8(ascii: "a") + UInt8($0 % 26) })
            let api = client(httpbin.baseURL, retryPolicy: .never)
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let destination = directory.appendingPathComponent("range.bin")
            // Sent slowly (2 s in 1 KiB pieces); the first download cancels itself at its first
            // bytes (its first progress report), however late its reader runs.
            let query = [URLQueryItem(name: "chunk_size", value: "1024"), URLQueryItem(name: "duration", value: "2")]
            let slow = Endpoint<Data>(
                path: "range/\(size)", query: query,
                options: RequestOptions(downloadProgress: { report in
                    if report.completedBytes > 0 { withUnsafeCurrentTask { $0?.cancel() } }
                }))
            let interrupted = await Task { () async throws(NetworkError) in
                try await api.download(slow, to: destination, maxBytes: size, resumable: true)
            }.result
            guard case .failure(NetworkError.cancelled) = interrupted else { Issue.record("got \(interrupted)"); return }
            let kept = try Data(contentsOf: directory.appendingPathComponent(".range.bin.partial"))
            #expect(kept.count > 0 && kept.count < size)
            #expect(kept == expected.prefix(kept.count))

            let response = try await api.download(Endpoint<Data>(path: "range/\(size)", query: query), to: destination, maxBytes: size, resumable: true)
            #expect(response.status == 206)
            #expect(response.headers["Content-Range"] == "bytes \(kept.count)-\(size - 1)/\(size)")
            #expect(try Data(contentsOf: destination) == expected)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["range.bin"])
            await api.shutdown()
        }
    }

    @Test("upload progress: monotonic, throttled, ending at the body's length; from 0 again when a retry sends it again")
    func uploadProgress() async throws {
        try await withScriptedServer { server in
            try await server.script("/upload", method: "PUT", [.status(503), .status(204)])
            let api = client(server.baseURL)
            let body = patternBytes(from: 0, count: 4 << 20)
            let progress = Locked<[TransferProgress]>([])
            let endpoint = Endpoint<EmptyResponse>(
                path: "upload", method: .put, body: .data(body),
                options: RequestOptions(uploadProgress: { report in progress.withLock { $0.append(report) } }))
            _ = try await api.send(endpoint)
            let reports = progress.withLock { $0 }
            let total = Int64(body.count)
            #expect(reports.allSatisfy { $0.totalBytes == total })
            // Two sends: each starts at 0 and ends at the whole.
            let starts = reports.indices.filter { reports[$0].completedBytes == 0 }
            #expect(starts.count == 2)
            #expect(reports.filter { $0.completedBytes == total }.count == 2)
            #expect(reports.last?.fractionCompleted == 1)
            for run in [reports[starts[0]..<starts[1]], reports[starts[1]...]] {
                #expect(zip(run, run.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
            }
            let received = try await server.requests(path: "/upload")
            #expect(received.map(\.bodyLength) == [body.count, body.count])
            await api.shutdown()
        }
    }

    @Test("download progress of a streamed body: the Content-Length as total, the last report the whole")
    func streamedDownloadProgress() async throws {
        try await withScriptedServer { server in
            try await server.script("/feed", [.streamed(StreamSpec(chunks: 16, chunkSize: 64 << 10))])
            let api = client(server.baseURL)
            let progress = Locked<[TransferProgress]>([])
            let (_, bytes) = try await api.bytes(
                for: Endpoint<Data>(path: "feed", options: RequestOptions(downloadProgress: { report in progress.withLock { $0.append(report) } })))
            let data = try await bytes.collect(upTo: 2 << 20)
            let reports = progress.withLock { $0 }
            #expect(data.count == 1 << 20)
            #expect(reports.last == TransferProgress(completedBytes: 1 << 20, totalBytes: 1 << 20))
            #expect(reports.count <= 16)
            await api.shutdown()
        }
    }

    private func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-download-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}

/// HTTP dates as servers write them.
enum HTTPDateFormat {
    /// Now, as an IMF-fixdate.
    static func now() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date())
    }
}
