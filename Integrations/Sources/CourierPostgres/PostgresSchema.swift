import PostgresNIO

/// Makes the queue's table and index once per storage, at its first use: every call waits on
/// the same attempt, and one that failed (the server was down) is tried again by the next call.
actor PostgresSchema {
    private let statements: [String]
    private var made = false
    private var attempt: Task<Void, any Error>?

    init(statements: [String]) {
        self.statements = statements
    }

    /// Whether the schema is known to exist, so that ``PostgresOfflineStorage/prepare()`` need
    /// not lease a connection to learn it.
    var isMade: Bool { made }

    /// Returns once the schema exists; throws what making it threw. The first caller's
    /// `connection` makes it (the caller's deadline closes that connection, which ends the
    /// attempt too).
    func ensure(on connection: PostgresConnection) async throws {
        if made { return }
        let attempt = self.attempt ?? Task { [statements] in
            // Two replicas starting together would race on the catalog; a transaction-level
            // advisory lock makes the second wait for the first.
            try await connection.withTransaction(logger: PostgresOfflineStorage.quietLogger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(7231180393)", logger: PostgresOfflineStorage.quietLogger)
                for statement in statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: PostgresOfflineStorage.quietLogger)
                }
            }
        }
        self.attempt = attempt
        do {
            // A caller that gives up (its timeout) cancels the attempt; the next call starts anew.
            try await withTaskCancellationHandler { try await attempt.value } onCancel: { attempt.cancel() }
            made = true
        } catch {
            self.attempt = nil
            throw error
        }
    }
}
