import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The `OfflineWriter` helper executable, built beside this test bundle.
private var writerURL: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("OfflineWriter")
}

/// Runs the writer until it has printed `lines` lines, then SIGKILLs it; returns what it printed
/// (`id tag` lines), whole lines only.
private func runWriter(database: String, server: URL, prefix: String, killAfter lines: Int) async throws -> [(id: Int64, tag: String)] {
    let process = Process()
    process.executableURL = writerURL
    process.arguments = [database, server.absoluteString, prefix]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try await ChildProcesses.run(process)
    // The reads block until the writer prints: on a thread of their own, not the pool's.
    return await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: readPrinted(by: process, from: output.fileHandleForReading, killAfter: lines)) }.start()
    }
}

/// Reads the writer's lines until `lines` have come, SIGKILLs it, then takes what it printed
/// before dying. Blocks its thread.
private func readPrinted(by process: Process, from reader: FileHandle, killAfter lines: Int) -> [(id: Int64, tag: String)] {
    var buffer = Data()
    var printed: [(Int64, String)] = []
    while printed.count < lines {
        let chunk = reader.readChunk()
        if chunk.isEmpty { break }   // the writer ended on its own (it failed)
        buffer.append(chunk)
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
            buffer.removeSubrange(buffer.startIndex...newline)
            let parts = line.split(separator: " ")
            if parts.count == 2, let id = Int64(parts[0]) { printed.append((id, String(parts[1]))) }
        }
    }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    // Lines the writer printed before the kill but this loop had not read yet are durable too.
    buffer.append(reader.readToEndOfFile())
    for line in String(decoding: buffer, as: UTF8.self).split(separator: "\n") {
        let parts = line.split(separator: " ")
        if parts.count == 2, let id = Int64(parts[0]) { printed.append((id, String(parts[1]))) }
    }
    return printed
}

@Suite struct OfflineQueueKillTests {
    @Test("kill -9 at random points, also mid-drain: every write whose id was printed is stored or delivered, each key processed once")
    func killNine() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        // A short delay keeps replays in flight when the kill comes.
        try await server.script("/writes", method: "POST", [ScriptedResponse.json(201, "{}").with(delay: 0.005)])
        let database = try temporaryDirectory().appendingPathComponent("offline.sqlite").path
        let random = SeededRandomSource(seed: 11)
        var printed: [(id: Int64, tag: String)] = []
        for round in 0..<24 {
            let lines = 1 + Int(random.nextUnit() * 40)
            printed += try await runWriter(database: database, server: server.baseURL, prefix: "r\(round)", killAfter: lines)
        }
        #expect(printed.count >= 24)

        let stored = RunningQueue(path: database, clock: SystemTimeSource())
        let items = try await stored.handle.items()
        await stored.stop()
        let storedTags = Dictionary(uniqueKeysWithValues: items.map { item in
            (item.id, (try? JSONDecoder().decode([String: String].self, from: item.request.body ?? Data()))?["tag"] ?? "")
        })
        let received = try await server.requests(path: "/writes")
        var keysByTag: [String: Set<String>] = [:]
        for request in received {
            let tag = (try? JSONDecoder().decode([String: String].self, from: request.body))?["tag"] ?? ""
            keysByTag[tag, default: []].insert(request.header("Idempotency-Key") ?? "")
        }
        for (id, tag) in printed {
            #expect(storedTags[id] == tag || keysByTag[tag] != nil, "item \(id) (\(tag)) was lost")
        }
        // A write replayed after a kill went out again with the same key, and the server
        // processed each key once.
        let reKeyed = keysByTag.filter { $0.value.count != 1 }
        #expect(reKeyed.isEmpty, "writes sent with more than one key: \(reKeyed)")
        let records = try await server.idempotencyKeys()
        #expect(records.values.allSatisfy { $0.processed <= 1 })
        #expect(!received.isEmpty)
    }
}
