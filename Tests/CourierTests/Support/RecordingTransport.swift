@testable import Courier

/// A transport that passes every exchange to another and keeps what went and came back: what
/// a real server (httpbin) was sent, in order, when the server itself does not count.
final class RecordingTransport: HTTPTransport, Sendable {
    /// One exchange: the request as sent, and the response's status and `WWW-Authenticate`.
    struct Exchange: Sendable {
        let request: HTTPRequest
        let status: Int?
        let challenge: String?

        /// The request's `Authorization`, if any.
        var authorization: String? { request.headers["Authorization"] }
    }

    private let inner: any HTTPTransport
    private let recorded = Locked<[Exchange]>([])

    init(_ inner: any HTTPTransport = APIClient.Configuration.defaultTransport) {
        self.inner = inner
    }

    /// Every exchange so far, in the order they ended.
    var exchanges: [Exchange] { recorded.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse {
        do {
            let response = try await inner.send(request)
            recorded.withLock { $0.append(Exchange(request: request, status: response.status, challenge: response.headers["WWW-Authenticate"])) }
            return response
        } catch {
            recorded.withLock { $0.append(Exchange(request: request, status: nil, challenge: nil)) }
            throw error
        }
    }
}
