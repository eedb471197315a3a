/// The cache's entries under a count and a byte limit, least recently used evicted first:
/// a dictionary from key to slot and a doubly linked list threaded through the slots by index,
/// so lookup, insert, touch and evict are O(1). A plain value, tested without the actor.
struct CacheStorage<Key: Hashable & Sendable>: Sendable {
    private struct Slot {
        var key: Key
        var entry: CacheEntry
        var size: Int
        var newer: Int
        var older: Int
    }

    /// The most entries kept.
    let maxEntries: Int
    /// The most bytes kept (bodies and header fields, see ``CacheEntry/size``).
    let maxBytes: Int
    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var index: [Key: Int] = [:]
    /// Most and least recently used slots; -1 when empty.
    private var newest = -1
    private var oldest = -1
    /// Bytes held.
    private(set) var bytes = 0

    init(maxEntries: Int, maxBytes: Int) {
        self.maxEntries = max(0, maxEntries)
        self.maxBytes = max(0, maxBytes)
    }

    /// Entries held.
    var count: Int { index.count }

    /// The entry under `key`, now the most recently used.
    mutating func entry(for key: Key) -> CacheEntry? {
        guard let slot = index[key] else { return nil }
        touch(slot)
        return slots[slot].entry
    }

    /// Stores `entry` under `key` (replacing any), then evicts the least recently used entries
    /// until both limits hold. An entry larger than the byte limit is not kept. Returns how
    /// many entries were evicted.
    @discardableResult
    mutating func store(_ entry: consuming CacheEntry, for key: Key) -> Int {
        let size = entry.size
        guard size <= maxBytes, maxEntries > 0 else {
            remove(key)
            return 0
        }
        let position: Int
        if let free = freeSlots.popLast() {
            position = free
        } else {
            slots.append(Slot(key: key, entry: .placeholder, size: 0, newer: -1, older: -1))
            position = slots.count - 1
        }
        // One look-up both files the key and finds the entry it replaces.
        if let replaced = index.updateValue(position, forKey: key) { release(replaced) }
        slots[position] = Slot(key: key, entry: consume entry, size: size, newer: -1, older: newest)
        if newest >= 0 { slots[newest].newer = position }
        newest = position
        if oldest < 0 { oldest = position }
        bytes += size
        var evicted = 0
        while count > maxEntries || bytes > maxBytes, oldest >= 0 {
            // The key alone is copied out (passed from the slot to `remove`, which changes the
            // slots, the whole slot was copied, its response with it).
            let key = slots[oldest].key
            remove(key)
            evicted += 1
        }
        return evicted
    }

    /// Forgets the entry under `key`, if any.
    mutating func remove(_ key: Key) {
        guard let slot = index.removeValue(forKey: key) else { return }
        release(slot)
    }

    /// Takes `slot`, no longer indexed, out of the recency list and frees it.
    private mutating func release(_ slot: Int) {
        unlink(slot)
        bytes -= slots[slot].size
        slots[slot].entry = CacheEntry.placeholder
        freeSlots.append(slot)
    }

    /// Forgets every entry that satisfies `predicate` (O(n), recency untouched).
    mutating func removeAll(where predicate: (Key, CacheEntry) -> Bool) {
        for (key, slot) in index where predicate(key, slots[slot].entry) { remove(key) }
    }

    /// The entry under `key`, without making it recent.
    func peek(_ key: Key) -> CacheEntry? {
        index[key].map { slots[$0].entry }
    }

    /// The keys, most recently used first: the order eviction takes them in, reversed.
    var keysByRecency: [Key] {
        var keys: [Key] = []
        var slot = newest
        while slot >= 0 {
            keys.append(slots[slot].key)
            slot = slots[slot].older
        }
        return keys
    }

    private mutating func touch(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        slots[slot].older = newest
        slots[slot].newer = -1
        if newest >= 0 { slots[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let (newer, older) = (slots[slot].newer, slots[slot].older)
        if newer >= 0 { slots[newer].older = older } else { newest = older }
        if older >= 0 { slots[older].newer = newer } else { oldest = newer }
        slots[slot].newer = -1
        slots[slot].older = -1
    }
}
