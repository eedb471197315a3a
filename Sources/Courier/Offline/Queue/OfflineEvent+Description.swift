extension OfflineEvent: CustomStringConvertible {
    /// What happened to which queued write, in a line: `item 7 delivered: 201`.
    public var description: String {
        switch self {
        case .enqueued(let id): "item \(id) enqueued"
        case .delivered(let id, let status): "item \(id) delivered: \(status)"
        case .retrying(let id, let attempt, let error): "item \(id) will be retried after attempt \(attempt): \(error)"
        case .deadLettered(let id, let error): "item \(id) dead-lettered: \(error)"
        case .expired(let id): "item \(id) expired"
        case .conflict(let id, let status): "item \(id) conflicted: \(status)"
        case .waitingForUser(let id): "item \(id) waits for the user it was queued under"
        case .conflictResolved(let id, let resolution): "item \(id) conflict resolved: \(resolution)"
        case .removed(let id): "item \(id) removed"
        case .recovered(let salvaged, let lost, let path):
            "queue storage recovered: \(salvaged) salvaged, \(lost.map(String.init) ?? "an unknown number") lost, "
                + "the damaged file moved to \(path)"
        case .storageFailed(let reason): "queue storage failed: \(reason)"
        }
    }
}
