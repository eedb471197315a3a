/// Where the sync coordinator keeps its drain in flight, shared by its instances: the task, and
/// whether the client is shutting down (then no drain starts).
struct DrainSlot: Sendable {
    var task: Task<Void, Never>?
    var closed = false
}
