import Courier
import CourierOpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A client of `baseURL` over the default transport (libcurl on Linux), without retries
/// unless `retryPolicy` says.
func courierClient(
    _ baseURL: URL, retryPolicy: RetryPolicy = .never, configure: (inout APIClient.Configuration) -> Void = { _ in }
) -> APIClient {
    var configuration = APIClient.Configuration(baseURL: baseURL, retryPolicy: retryPolicy)
    configuration.limits = .init(maxConcurrentRequests: 64, maxQueuedRequests: 1024)
    configure(&configuration)
    return APIClient(configuration: configuration)
}

/// The generated client over `transport`, its server `baseURL`.
func generatedClient(_ baseURL: URL, _ transport: CourierTransport, middlewares: [any ClientMiddleware] = []) -> Client {
    Client(serverURL: baseURL, transport: transport, middlewares: middlewares)
}

/// The operations and request headers the interceptors of a client saw, in order.
actor SeenRequests {
    private(set) var operations: [String?] = []
    private(set) var headers: [HTTPHeaders] = []

    func record(_ operation: String?, _ headers: HTTPHeaders) {
        operations.append(operation)
        self.headers.append(headers)
    }
}

/// Records what each request passing it carried: its ``OpenAPIOperation`` tag and headers.
struct RecordingInterceptor: RequestInterceptor {
    let seen: SeenRequests

    func intercept(_ request: Courier.HTTPRequest, context: RequestContext) async throws -> RequestInterception {
        await seen.record(context.tags[OpenAPIOperation.self]?.id, request.headers)
        return .proceed(request)
    }
}

/// A runtime middleware that adds `X-Middleware: <operationID>` to every request.
struct StampingMiddleware: ClientMiddleware {
    func intercept(
        _ request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPTypes.HTTPRequest, HTTPBody?, URL) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[HTTPField.Name("X-Middleware")!] = operationID
        return try await next(request, body, baseURL)
    }
}

/// `count` bytes of a repeating pattern, made `chunk` bytes at a time as they are read.
struct PatternChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let count: Int
    let chunk: Int

    /// The whole pattern, to compare with what a server received.
    var bytes: Data { Data((0..<count).map(Self.byte)) }

    static func byte(_ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: index &* 31 &+ 7) }

    struct AsyncIterator: AsyncIteratorProtocol {
        let count: Int
        let chunk: Int
        var offset = 0

        mutating func next() async -> ArraySlice<UInt8>? {
            guard offset < count else { return nil }
            let end = Swift.min(offset + chunk, count)
            defer { offset = end }
            return ArraySlice((offset..<end).map(PatternChunks.byte))
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(count: count, chunk: chunk) }

    /// The pattern as a body of unknown length that can be iterated once, as an upload
    /// streamed from elsewhere.
    var body: HTTPBody { HTTPBody(self, length: .unknown, iterationBehavior: .single) }
}
