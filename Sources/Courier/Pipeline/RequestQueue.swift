/// A FIFO of admitted requests of one priority waiting for a slot (``AdmissionLane``): amortised O(1) append and pop;
/// removal by id (a cancelled request) leaves a hole that pops skip. Popped slots are
/// compacted away once they are at least 64 and half of the storage; the newest is popped
/// when it is shed.
struct RequestQueue {
    private var items: [WaitingRequest?] = []
    private var head = 0
    /// Requests waiting (holes excluded).
    private(set) var count = 0

    /// Slots held in storage, popped or not: what compaction keeps bounded.
    var storageCount: Int { items.count }

    mutating func append(_ item: WaitingRequest) {
        items.append(item)
        count += 1
    }

    mutating func popFirst() -> WaitingRequest? {
        while head < items.count {
            let item = items[head]
            items[head] = nil
            head += 1
            if head >= 64, head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            if let item {
                count -= 1
                return item
            }
        }
        return nil
    }

    /// Removes and returns the newest request: the one shed when a more urgent one needs its
    /// place. Trailing holes go with it, so storage stays bounded.
    mutating func popLast() -> WaitingRequest? {
        while items.count > head {
            if let item = items.removeLast() {
                count -= 1
                return item
            }
        }
        return nil
    }

    /// Removes request `id`; returns whether it was here.
    @discardableResult
    mutating func remove(_ id: RequestID) -> Bool {
        guard let index = items[head...].firstIndex(where: { $0?.id == id }) else { return false }
        items[index] = nil
        count -= 1
        return true
    }

    /// Removes the requests whose deadline is at or before `now` and returns them, with the
    /// earliest deadline of those left (`nil` when none is left).
    mutating func removeExpired(at now: Duration) -> (expired: [WaitingRequest], next: Duration?) {
        var expired: [WaitingRequest] = []
        var next: Duration?
        for index in items.indices[head...] {
            guard let item = items[index] else { continue }
            if item.deadline <= now {
                expired.append(item)
                items[index] = nil
                count -= 1
            } else {
                next = min(next ?? item.deadline, item.deadline)
            }
        }
        return (expired, next)
    }
}
