/// `value` mixed with a hash table's `seed` by splitmix64's finaliser (a bijection in which every
/// input bit moves every output bit): what keys that are already a seeded hash (`CacheKey`), or
/// numbers Courier hands out one after another (`RequestID`, a cache fetch's number), are hashed
/// by in a `Dictionary` or `Set` (their `_rawHashValue(seed:)`), instead of a SipHash round per
/// look-up. Tables with different seeds still order keys differently.
/// (Unlike SipHash with the process's random seed, this is predictable: fine for numbers no one
/// outside chooses, not for text that comes from outside.)
func splitMix(_ value: UInt64, seed: Int) -> Int {
    var mixed = value ^ UInt64(truncatingIfNeeded: seed)
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    // Truncated where `Int` has 32 bits (watchOS on arm64_32).
    return Int(truncatingIfNeeded: mixed ^ (mixed >> 31))
}
