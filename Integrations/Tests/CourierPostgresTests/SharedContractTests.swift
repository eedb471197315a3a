import Courier
import CourierPostgres
import CourierTesting
import Foundation
import Testing

extension PostgresTests {
    /// CourierTesting's contract checks of `SharedOfflineStorage`, each on a table of its own.
    @Suite struct SharedContractTests {
        @Test func postgresKeepsTheSharedStorageContract() async throws {
            let tables = TableNames()
            try await TestPostgres.withStorage { _, client in
                do {
                    try await SharedOfflineStorageContract.check {
                        let storage = PostgresOfflineStorage(client: client, table: TestPostgres.uniqueTable(), operationTimeout: .seconds(5))
                        await tables.add(storage.table)
                        return storage
                    }
                } catch {
                    Issue.record("\(error)")
                }
            }
            let url = try TestPostgres.url()
            for table in await tables.all { try await TestPostgres.drop(table, url: url) }
        }

        @Test func anInsertWakesAnotherClientsStorage() async throws {
            try await TestPostgres.withStorage { storage, client in
                let other = PostgresOfflineStorage(client: client, table: storage.table)
                try await SharedOfflineStorageContract.checkWakeUps(inserting: storage, listening: other)
            }
        }
    }
}

/// The tables a test made, to drop afterwards.
actor TableNames {
    private(set) var all: [String] = []

    func add(_ table: String) { all.append(table) }
}
