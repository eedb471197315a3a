/// Where an offline queue opens its durable store: ``SQLiteOfflineStorage`` in use; tests put
/// slow or failing doubles in its place. Each queue instance opens it once, on its own thread.
protocol OfflineStorage: Sendable {
    /// Opens (or creates) the store at `path` (`:memory:` for none), with the items it holds.
    func open(path: String) throws -> OfflineStore.Opened
}
