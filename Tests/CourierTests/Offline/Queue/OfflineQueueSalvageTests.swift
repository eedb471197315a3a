import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A write whose body names `n`: every fifth one over 4 KiB, so that it spills into overflow pages.
private func noteBody(_ n: Int) -> HTTPRequest {
    let text = n % 5 == 0 ? String(repeating: "\(n),", count: 1500) : "note \(n)"
    return HTTPRequest(
        method: .post, url: URL(string: "https://api.example.com/notes/\(n)")!, headers: ["Content-Type": "text/plain"],
        body: Data(text.utf8))
}

/// The rows of the database at `path` that SQLite can still read whole (every column), by id
/// up to `highest`: a scan in id order until its first error, and each id looked up alone.
/// Read independently of the queue's salvage: its own connection, its own queries.
private func readableRows(_ path: String, upTo highest: Int64) -> [Int64: (key: String, body: Data?)] {
    guard let database = try? SQLiteDatabase.openReadOnly(path) else { return [:] }
    var rows: [Int64: (key: String, body: Data?)] = [:]
    func keep(_ row: SQLiteDatabase.RowReader) {
        let id = row.integer(0)
        if (1...highest).contains(id), rows[id] == nil { rows[id] = (row.text(6), row.isNull(4) ? nil : row.blob(4)) }
    }
    _ = try? database.query("SELECT * FROM items ORDER BY id", [], columns: keep)
    for id in 1...highest where rows[id] == nil {
        _ = try? database.query("SELECT * FROM items WHERE id = ?", [.integer(id)], columns: keep)
    }
    return rows
}

private func events(of queue: RunningQueue, _ subscription: AsyncStream<OfflineEvent>) async -> [OfflineEvent] {
    queue.events.finish()
    return await subscription.reduce(into: []) { $0.append($1) }
}

@Suite struct OfflineQueueSalvageTests {
    @Test("a file damaged at seeded random offsets, 100 times: every row SQLite can still read is replayed with its id, and no id is handed out twice")
    func damagedFiles() async throws {
        let path = try temporaryDirectory().appendingPathComponent("queue.sqlite").path
        let writer = RunningQueue(path: path, clock: ManualClock())
        for n in 1...150 { _ = try await writer.handle.enqueue(noteBody(n), requiresAuth: true) }
        // Some delivered meanwhile: gaps in the ids.
        for id in stride(from: 3, through: 150, by: 7) { try await writer.handle.remove(Int64(id)) }
        await writer.stop()
        let highest: Int64 = 150
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))   // checkpointed at close: one file to damage
        let pristine = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let idFile = try Data(contentsOf: URL(fileURLWithPath: path + ".ids"))

        let random = SeededRandomSource(seed: 28)
        let rounds = isThreadSanitized ? 25 : 100
        var recoveries = 0
        for round in 0..<rounds {
            var damaged = pristine
            for _ in 0..<(1 + random.next() % 4) {
                let length = 1 + Int(random.next() % 64)
                let offset = Int(random.next() % UInt64(damaged.count - length))
                for index in offset..<(offset + length) { damaged[index] = UInt8(truncatingIfNeeded: random.next()) }
            }
            // Every tenth round the header too; one round nothing of it left.
            if round % 10 == 0 { damaged[Int(random.next() % 100)] ^= 0xFF }
            if round == 1 { damaged = damaged.map { _ in UInt8(truncatingIfNeeded: random.next()) } }
            let directory = try temporaryDirectory()
            let file = directory.appendingPathComponent("queue.sqlite").path
            let reference = directory.appendingPathComponent("reference.sqlite").path
            try Data(damaged).write(to: URL(fileURLWithPath: file))
            try Data(damaged).write(to: URL(fileURLWithPath: reference))
            try idFile.write(to: URL(fileURLWithPath: file + ".ids"))
            let readable = readableRows(reference, upTo: highest)

            let queue = RunningQueue(path: file, clock: ManualClock())
            let subscription = queue.events.subscribe()
            let items = try await queue.handle.items()
            let byID = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
            for (id, row) in readable.sorted(by: { $0.key < $1.key }) {
                #expect(byID[id]?.idempotencyKey == row.key, "round \(round): row \(id) could be read but was not kept")
                #expect(byID[id]?.request.body == row.body, "round \(round): row \(id) kept with another body")
            }
            let next = try await queue.handle.enqueue(noteBody(0), requiresAuth: true)
            #expect(next > highest, "round \(round): id \(next) was handed out before")
            await queue.stop()
            let seen = await events(of: queue, subscription)
            if case .recovered(let salvaged, let lost, let movedTo) = seen.first {
                recoveries += 1
                #expect(salvaged == items.count && salvaged >= readable.count, "round \(round)")
                #expect(lost.map { $0 >= 0 } ?? true)
                #expect(FileManager.default.contents(atPath: movedTo) == Data(damaged), "round \(round): the damaged file kept as it was")
            } else {
                // Damage SQLite did not notice: the file was used as it was.
                #expect(items.count >= readable.count, "round \(round)")
            }
            if round == 1, case .recovered(let salvaged, let lost, _)? = seen.first {
                #expect(salvaged == 0 && lost == nil && items.isEmpty)   // nothing readable, and still no id reused
            } else if round == 1 {
                Issue.record("a file with nothing left was not recovered: \(seen)")
            }
        }
        #expect(recoveries >= rounds / 10)
    }

    @Test("ids are never reused across restarts and resets, even when nothing of the file can be read, and an id file of an older version is made")
    func idsAcrossResets() async throws {
        let path = try temporaryDirectory().appendingPathComponent("queue.sqlite").path
        var given: [Int64] = []
        func run(_ writes: Int) async throws {
            let queue = RunningQueue(path: path, clock: ManualClock())
            for n in 0..<writes { given.append(try await queue.handle.enqueue(noteBody(n), requiresAuth: true)) }
            await queue.stop()
        }
        func destroy() throws {
            try Data(repeating: 0xA5, count: 4096).write(to: URL(fileURLWithPath: path))
        }
        try await run(3)
        try await run(2)   // a plain restart: the ids go on from the last
        #expect(given == [1, 2, 3, 4, 5])
        try destroy()
        try await run(2)
        try destroy()
        try await run(1)
        // A file from before the id file: one is made at the first open.
        try FileManager.default.removeItem(atPath: path + ".ids")
        try await run(1)
        try destroy()
        try await run(1)
        #expect(given == given.sorted() && Set(given).count == given.count, "\(given)")
    }
}
