import Courier
import CourierPostgres
import Foundation
import PostgresNIO

/// `courier-postgres-bench --profile offline-postgres [--quick] [--url postgres://…]`: the
/// offline queue on PostgreSQL (durable enqueues per second with 64 enqueuers; drain rate with
/// one and three replicas against a receiver that takes 2 ms per item) beside the SQLite queue's
/// figures from the same run. The server is `--url`'s, else `COURIER_POSTGRES_URL`
/// (`.ci/postgres start`). Exits non-zero when a floor is missed or an item was lost.
@main
enum PostgresBench {
    static func main() async throws {
        let arguments = CommandLine.arguments.dropFirst()
        let quick = arguments.contains("--quick")
        if let index = arguments.firstIndex(of: "--profile"), arguments.index(after: index) < arguments.endIndex,
            arguments[arguments.index(after: index)] != "offline-postgres"
        {
            fail("unknown profile (only offline-postgres)")
        }
        let urlText = arguments.firstIndex(of: "--url").map { arguments[arguments.index(after: $0)] }
            ?? ProcessInfo.processInfo.environment["COURIER_POSTGRES_URL"]
        guard let urlText, let url = URL(string: urlText) else { fail("no server: --url or COURIER_POSTGRES_URL (.ci/postgres start)") }

        let enqueues = quick ? 64 * 40 : 64 * 400
        let drainItems = quick ? 300 : 3_000
        let receiver = try await Receiver.start(delayMilliseconds: 2)
        defer { receiver.stop() }

        let postgresEnqueue = try await PostgresRuns.enqueueRate(url: url, writes: enqueues, enqueuers: 64)
        let oneReplica = try await PostgresRuns.drainRate(url: url, items: drainItems, replicas: 1, receiver: receiver)
        let threeReplicas = try await PostgresRuns.drainRate(url: url, items: drainItems, replicas: 3, receiver: receiver)
        let sqlite = await SQLiteRuns.measure(writes: enqueues, drainItems: drainItems, receiver: receiver.baseURL)

        let rows = [
            ("PostgreSQL", "durable enqueues/s, 64 enqueuers", postgresEnqueue),
            ("PostgreSQL", "drain items/s, 1 replica", oneReplica.rate),
            ("PostgreSQL", "drain items/s, 3 replicas", threeReplicas.rate),
            ("SQLite", "durable enqueues/s, 64 enqueuers", sqlite.enqueueRate),
            ("SQLite", "drain items/s, 1 client", sqlite.drainRate),
        ]
        print("| queue | measure | value |\n|---|---|---:|")
        for (queue, measure, value) in rows { print("| \(queue) | \(measure) | \(Int(value.rounded())) |") }
        print("(\(quick ? "quick" : "full") run: \(enqueues) enqueues, \(drainItems) items drained per row; receiver 2 ms per item)")

        var failures: [String] = []
        if oneReplica.lost + threeReplicas.lost + sqlite.lost > 0 { failures.append("items were lost") }
        if oneReplica.duplicates + threeReplicas.duplicates > 0 { failures.append("items were applied twice") }
        if !quick {
            if postgresEnqueue < 10_000 { failures.append("enqueues/s below the floor of 10,000") }
            if threeReplicas.rate < 2 * oneReplica.rate { failures.append("3 replicas drain less than 2x one") }
        }
        let ratio = threeReplicas.rate / max(oneReplica.rate, 1)
        print("floors (full run): enqueues >= 10000/s: \(postgresEnqueue >= 10_000 ? "met" : "missed"); 3 replicas >= 2x one: \(String(format: "%.2f", ratio))x")
        if !failures.isEmpty { fail(failures.joined(separator: "; ")) }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("courier-postgres-bench: \(message)\n".utf8))
        exit(1)
    }
}
