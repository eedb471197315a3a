/// `value` mixed with a hash table's `seed` by splitmix64's finaliser (a bijection in which every
/// input bit moves every output bit): how a key that is already a seeded hash (`CacheKey`) is
/// hashed in a `Dictionary` or `Set`, instead of a second SipHash. Tables with different seeds
/// still order keys differently. (Predictable, unlike SipHash: fine for a value that is itself a
/// seeded hash, not for numbers or text that come from outside.)
func splitMix(_ value: UInt64, seed: Int) -> Int {
    var mixed = value ^ UInt64(truncatingIfNeeded: seed)
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    // Truncated where `Int` has 32 bits (watchOS on arm64_32).
    return Int(truncatingIfNeeded: mixed ^ (mixed >> 31))
}
