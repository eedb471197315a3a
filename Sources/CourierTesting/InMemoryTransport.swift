import Courier
import Foundation

/// A transport that answers from a closure, in memory: no sockets, no parsing. The embedded
/// default of `courier-bench`, and the simplest double for tests.
///
/// The pipeline's deadlines rely on transports honouring ``HTTPRequest/timeout``; a handler
/// that suspends should honour it too (or use ``ScriptedTransport``, whose delays do).
public struct InMemoryTransport: HTTPTransport {
    private let handler: @Sendable (HTTPRequest) async throws(NetworkError) -> HTTPResponse

    /// Creates a transport that answers every request with `handler`.
    public init(_ handler: @escaping @Sendable (HTTPRequest) async throws(NetworkError) -> HTTPResponse) {
        self.handler = handler
    }

    /// Creates a transport that answers every request with the same response.
    public init(always response: HTTPResponse) {
        self.init { _ throws(NetworkError) in response }
    }

    public func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse {
        try request.validate()
        if Task.isCancelled { throw .cancelled }
        return try await handler(request)
    }
}
