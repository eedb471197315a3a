import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The `NetworkError` a call's task ended with, or `nil` if it succeeded.
func failure<Value>(of call: Task<Value, any Error>) async -> NetworkError? {
    switch await call.result {
    case .success: nil
    case .failure(let error): error as? NetworkError ?? .unknown(underlying: error)
    }
}

/// Polls `condition`, yielding between polls, for state that has no event to wait on.
/// Gives up after many rounds so a broken test fails instead of hanging.
func waitUntil(_ condition: () async -> Bool) async {
    for _ in 0..<1_000_000 {
        if await condition() { return }
        await Task.yield()
    }
    Issue.record("condition never became true")
}

/// Whether this test process runs under ThreadSanitizer (its runtime is linked in): tests that
/// move hundreds of MiB use smaller sizes there, where every byte costs many times more, so
/// they do not starve the tests running beside them.
let isThreadSanitized: Bool = dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil

/// Bytes whose byte `i` is `i % 256`, `count` of them from `start`: what a scripted stream with
/// `pattern: true` sends. Compared whole (a memory comparison), not byte by byte.
func patternBytes(from start: Int, count: Int) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: start + $0) })
}
