import Courier
import CourierPostgres
import Foundation
import PostgresNIO
import Testing

extension PostgresTests {
    /// Lost connections and a restarted server, against the real server.
    @Suite struct FaultTests {
        let lease = Duration.seconds(30)

        @Test(.timeLimit(.minutes(2))) func aConnectionCutDuringAClaimsCommitLosesNothingAndHandsTheItemOutOnce() async throws {
            let url = try TestPostgres.url()
            let proxy = try await ScriptProcess.start("tcp_proxy.py", arguments: ["\(url.port ?? 5432)"])
            defer { proxy.stop() }
            try await TestPostgres.withStorage(port: proxy.port, connections: 2) { storage, _ in
                let ids = try await storage.insert([Items.write(key: "a")])
                let key = try await storage.items()[0].idempotencyKey
                // The claim's answer is dropped and its connection cut: it committed, but the
                // replica never learns it holds the item. (When the cut comes before the
                // statement ran, the driver sends it again on another connection and the claim
                // returns the item: the same lease, seen. Either way the item must be handed out
                // once, after that lease.)
                try await proxy.send("arm")
                let seen = (try? await storage.claim(owner: "cut", limit: 1, identity: nil, now: Items.start, lease: lease)) ?? []
                #expect(seen.isEmpty || seen.map(\.id) == ids)
                // The pool reconnects; the item is still there, handed out once: now if the cut
                // beat the commit, else once the lost claim's lease expires.
                #expect(try await TestPostgres.retrying { try await storage.items() }.map(\.id) == ids)
                var handedOut = try await storage.claim(owner: "r2", limit: 1, identity: nil, now: Items.start, lease: lease)
                handedOut += try await storage.claim(owner: "r2", limit: 1, identity: nil, now: Items.start.addingTimeInterval(31), lease: lease)
                #expect(handedOut.map(\.id) == ids)
                #expect(handedOut.first?.idempotencyKey == key)
                try await storage.write(owner: "r2", updating: [], deleting: ids)
                #expect(try await storage.items().isEmpty)
            }
        }

        @Test(.timeLimit(.minutes(2))) func aServerGoneSilentFailsTheCallAtItsTimeoutAndClosesItsConnection() async throws {
            let url = try TestPostgres.url()
            let proxy = try await ScriptProcess.start("tcp_proxy.py", arguments: ["\(url.port ?? 5432)"])
            defer { proxy.stop() }
            // One connection: were the silent one kept, no call could be served again.
            try await TestPostgres.withStorage(port: proxy.port, connections: 1) { storage, client in
                let ids = try await storage.insert([Items.write(key: "a")])
                let hasty = PostgresOfflineStorage(client: client, table: storage.table, operationTimeout: .milliseconds(500))
                // The query goes out and no answer comes back, on an open connection: the driver
                // would wait as long as the connection lives, and does not stop when cancelled.
                try await proxy.send("mute")
                do {
                    _ = try await hasty.items()
                    Issue.record("a silent server answered")
                } catch NetworkError.storageFailed(let message) {
                    #expect(message.contains("read items timed out"))
                }
                // The timed-out call's connection was closed, not left waiting: once the server
                // speaks again, the pool serves calls (no connection is cut from outside).
                try await proxy.send("unmute")
                #expect(try await TestPostgres.retrying { try await storage.items() }.map(\.id) == ids)
            }
        }

        @Test(
            .timeLimit(.minutes(3))
        ) func aServerRestartMidDrainLosesNothingAndReplicasGoOn() async throws {
            try await TestPostgres.withStorage(connections: 6) { storage, _ in
                let keys = 8
                let perKey = 40
                var items: [OfflineItem] = []
                for sequence in 0..<perKey { for key in 0..<keys { items.append(Items.write(key: "k\(key)", sequence: sequence)) } }
                let ids = Set(try await storage.insert(items))
                let log = DeliveryLog()
                let clock = LogicalClock()
                let failures = FailureCount()
                // Past a quarter, the replicas wait before their next claim until the server is
                // down: items remain, and the replicas' next calls meet the stopped server.
                let gate = RestartGate(threshold: keys * perKey / 4)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for replica in 0..<3 {
                        group.addTask {
                            try await Self.drain(
                                storage, owner: "r\(replica)", log: log, clock: clock, failures: failures, gate: gate, lease: lease)
                        }
                    }
                    await log.waitFor(deliveries: keys * perKey / 4)
                    try await TestPostgres.control("pause")
                    await gate.open()
                    await failures.waitFor(1)
                    try await TestPostgres.control("resume")
                    try await group.waitForAll()
                }
                let delivered = await log.deliveredIDs()
                #expect(delivered == ids)
                #expect(await log.summary().outOfOrder == 0)
                #expect(try await storage.items().isEmpty)
            }
        }

        /// A replica's drain at the storage's level: claim, deliver, delete; an error (the server
        /// is down) is retried after a short pause, and a delete is retried until it is made.
        static func drain(
            _ storage: PostgresOfflineStorage, owner: String, log: DeliveryLog, clock: LogicalClock, failures: FailureCount,
            gate: RestartGate, lease: Duration
        ) async throws {
            while true {
                await gate.pass(delivered: await log.summary().deliveries)
                do {
                    let claimed = try await storage.claim(owner: owner, limit: 4, identity: nil, now: await clock.tick(), lease: lease)
                    if claimed.isEmpty {
                        if try await storage.waitingCount() == 0 { return }
                        try await Task.sleep(for: .milliseconds(5))
                        continue
                    }
                    for item in claimed { await log.deliver(item) }
                    while true {
                        do {
                            try await storage.write(owner: owner, updating: [], deleting: claimed.map(\.id))
                            break
                        } catch {
                            await failures.add()
                            try await Task.sleep(for: .milliseconds(50))
                        }
                    }
                } catch let error as NetworkError {
                    guard case .storageFailed = error else { throw error }
                    await failures.add()
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
        }
    }
}

/// The replicas' `now`: one second later at each claim, so that a lease lost with a cut
/// connection expires after a known number of claims, whatever the real time.
actor LogicalClock {
    private var now = Items.start

    func tick() -> Date {
        now = now.addingTimeInterval(1)
        return now
    }
}

/// How many storage calls failed.
actor FailureCount {
    private(set) var count = 0
    private var waiters: [(Int, CheckedContinuation<Void, Never>)] = []

    func add() {
        count += 1
        let ready = waiters.filter { $0.0 <= count }
        waiters.removeAll { $0.0 <= count }
        for (_, continuation) in ready { continuation.resume() }
    }

    /// Returns once `failures` calls failed.
    func waitFor(_ failures: Int) async {
        if count >= failures { return }
        await withCheckedContinuation { continuation in waiters.append((failures, continuation)) }
    }
}
