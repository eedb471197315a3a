import CourierTesting
import Foundation
import Testing

@testable import Courier

struct User: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

/// Retries with no waiting, so counting tests need no clock.
let immediateRetries = RetryPolicy(maxAttempts: 3, retryableStatusCodes: RetryPolicy.default.retryableStatusCodes, backoff: .immediate)

func client(
    _ baseURL: URL, transport: any HTTPTransport = APIClient.Configuration.defaultTransport, retryPolicy: RetryPolicy = immediateRetries,
    clock: any TimeSource = SystemTimeSource(), configure: (inout APIClient.Configuration) -> Void = { _ in }
) -> APIClient {
    var configuration = APIClient.Configuration(
        baseURL: baseURL, transport: transport, retryPolicy: retryPolicy, clock: clock, random: SeededRandomSource(seed: 42))
    configure(&configuration)
    return APIClient(configuration: configuration)
}

/// Reads `stream` until `done`, given everything read so far, says stop; returns what it read.
func collect<Event: Sendable>(_ stream: AsyncStream<Event>, until done: ([Event]) -> Bool) async -> [Event] {
    var seen: [Event] = []
    for await event in stream {
        seen.append(event)
        if done(seen) { break }
    }
    return seen
}

/// Reads request events until `done` says stop at one; returns them.
func events(_ stream: AsyncStream<RequestEvent>, until done: (RequestEvent) -> Bool) async -> [RequestEvent] {
    await collect(stream) { done($0[$0.count - 1]) }
}

/// Counts final events (finished or failed) until `count` have been seen.
func finalEvents(_ stream: AsyncStream<RequestEvent>, count: Int) async -> [RequestEvent] {
    var finals = 0
    return await events(stream) { event in
        switch event {
        case .finished, .failed: finals += 1
        default: break
        }
        return finals == count
    }
}
