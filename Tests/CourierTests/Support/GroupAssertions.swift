import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A client with no optional component (no session, cache, connectivity or offline queue) and
/// a transport that answers 200 to everything, so nothing reaches a network.
func unconfiguredClient() -> APIClient {
    client(URL(string: "https://api.test")!, transport: InMemoryTransport(always: HTTPResponse(status: 200)))
}

/// Expects `call` to throw the unconfigured-group error: `componentUnavailable` carrying
/// `group`, whose description names `field`, the configuration field to set.
func expectUnavailable<Value>(
    _ group: String, naming field: String, _ call: () async throws(NetworkError) -> Value,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    do {
        _ = try await call()
        Issue.record("the call succeeded", sourceLocation: sourceLocation)
    } catch .componentUnavailable(let name) {
        #expect(name == group, sourceLocation: sourceLocation)
        #expect(NetworkError.componentUnavailable(name).description.contains(field), sourceLocation: sourceLocation)
    } catch {
        Issue.record("got \(error)", sourceLocation: sourceLocation)
    }
}

/// Whether `stream` has finished without an element. A stream that stays open fails the test
/// (after a bounded number of scheduler turns) instead of hanging it.
func finishesAtOnce<Element: Sendable>(_ stream: AsyncStream<Element>) async -> Bool {
    let outcome = Locked<Bool?>(nil)
    let reader = Task {
        var iterator = stream.makeAsyncIterator()
        let element = await iterator.next()
        if !Task.isCancelled { outcome.withLock { $0 = element == nil } }
    }
    await waitUntil { outcome.withLock { $0 } != nil }
    reader.cancel()
    return outcome.withLock { $0 } == true
}
