import Courier
import Foundation

/// A transport that answers from a closure, in memory: no sockets, no parsing. The embedded
/// default of `courier-bench`, and the simplest double for tests.
///
/// Like a real transport it refuses a body over ``HTTPRequest/maximumResponseSize`` with
/// `responseTooLarge`. The pipeline's deadlines rely on transports honouring
/// ``HTTPRequest/timeout``; a handler that suspends should honour it too (or use
/// ``ScriptedTransport``, whose delays do).
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

    /// Answers with the handler, after validating the request.
    public func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse {
        try request.validate()
        if Task.isCancelled { throw .cancelled }
        let response = try await handler(request)
        let limit = request.responseSizeLimit
        if response.body.count > limit { throw .responseTooLarge(limit: limit) }
        return response
    }
}
