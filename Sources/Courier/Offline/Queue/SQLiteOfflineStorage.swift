/// The offline queue's storage in use: a SQLite database (``OfflineStore``).
struct SQLiteOfflineStorage: OfflineStorage {
    func open(path: String) throws -> OfflineStore.Opened {
        try OfflineStore.open(path: path)
    }
}
