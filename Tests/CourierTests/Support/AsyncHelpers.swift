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
