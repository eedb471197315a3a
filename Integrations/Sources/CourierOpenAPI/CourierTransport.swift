public import Courier
public import Foundation
public import HTTPTypes
public import OpenAPIRuntime

/// A `ClientTransport` for clients made by swift-openapi-generator that sends every operation
/// through a Courier ``APIClient``, so that generated calls get its chain: interceptors, retries
/// with budgets and `Retry-After`, the session's token refresh (one for concurrent 401s), the
/// cache, the offline queue for writes, pinning, logging, metrics and tracing.
///
/// ```swift
/// let api = APIClient(configuration: .init(baseURL: URL(string: "https://api.example.com")!))
/// let client = Client(serverURL: try Servers.Server1.url(), transport: CourierTransport(client: api))
/// let user = try await client.getUser(path: .init(userId: 42)).ok.body.json
/// ```
///
/// - Request bodies stream: the transport reads the `HTTPBody` as it sends, through a bounded
///   buffer (a body the runtime can iterate more than once can be sent again, for a retry or a
///   401's renewal; one it iterates once is sent once, as Courier sends any stream).
/// - Response bodies are handed out as they arrive (an `HTTPBody` iterated once), except for
///   operations given a cache policy (the cache stores whole bodies). Repeated header fields
///   are kept, in order, both ways.
/// - Every status comes back as a response, as the generated client expects to switch on it:
///   the one Courier's chain settled on (after its retries, redirects and 401 renewal). An error
///   status's body is the one Courier keeps (``NetworkError/keptBodyBytes``).
/// - Failures without a response (no connection, timeout, cancellation, an invalid request)
///   throw Courier's ``NetworkError``; the runtime wraps it as the `underlyingError` of its
///   `ClientError`.
/// - Each call carries its ``OpenAPIOperation`` in ``RequestOptions/tags``, so interceptors see
///   the `operationID`; it is also the call's ``RequestOptions/operationName``, so the `started`
///   event names it and `CourierMetrics` labels the call's metrics with it (`operation`).
/// - Options per operation (``OperationOptions``) come from ``options`` by `operationID`, else
///   ``defaultOptions``.
///
/// The runtime's `ClientMiddleware`s (`Client(serverURL:transport:middlewares:)`) run before
/// this transport, so before Courier's chain: they see and may change the `HTTPRequest` before
/// Courier's interceptors, and see the response after Courier's retries and renewal (one call to
/// `next` is one Courier call, however many attempts it made).
public struct CourierTransport: ClientTransport {
    /// The header of the `202 Accepted` that answers a write stored in the offline queue: the
    /// queued item's id (``ClientOfflineQueue/items()``).
    public static let queuedItemHeader = "Courier-Queued-Item"

    /// The client every call goes through.
    public let client: APIClient
    /// Options by `operationID`.
    public var options: [String: OperationOptions]
    /// Options of the operations ``options`` does not name.
    public var defaultOptions: OperationOptions

    /// A transport sending through `client`, with `options` by `operationID` (`defaultOptions`
    /// for the others).
    public init(client: APIClient, options: [String: OperationOptions] = [:], defaultOptions: OperationOptions = OperationOptions()) {
        self.client = client
        self.options = options
        self.defaultOptions = defaultOptions
    }

    /// Sends one operation's request through ``client`` and returns its response.
    public func send(
        _ request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?) {
        let settings = options[operationID] ?? defaultOptions
        var callOptions = settings.request
        callOptions.tags[OpenAPIOperation.self] = OpenAPIOperation(id: operationID)
        // The operation, not the path, is what metrics and events name the call by.
        callOptions.operationName = callOptions.operationName ?? operationID
        let hasBody = !Self.hasNoResponseBody(request.method)
        do throws(NetworkError) {
            let outgoing = try Self.courierRequest(request, body: body, baseURL: baseURL)
            if settings.queuesOffline && !Self.isSafe(request.method) {
                return try await sendOrQueue(outgoing, body: body, options: callOptions, settings: settings, hasBody: hasBody)
            }
            if callOptions.cachePolicy != nil {
                let response = try await client.data(for: outgoing, options: callOptions)
                return Self.whole(response, hasBody: hasBody)
            }
            let (response, bytes) = try await client.bytes(
                for: outgoing, options: callOptions, stallTimeout: settings.stallTimeout, maxBytes: settings.maxResponseBytes)
            guard hasBody else {
                bytes.cancel()
                return (Self.head(of: response), nil)
            }
            return (Self.head(of: response), HTTPBody(bytes, length: Self.length(of: response), iterationBehavior: .single))
        } catch {
            guard let response = Self.settledResponse(of: error) else { throw error }
            return Self.whole(response, hasBody: hasBody)
        }
    }

    /// Sends a write through the offline queue: its response when sent, else a `202 Accepted`
    /// naming the queued item.
    private func sendOrQueue(
        _ request: Courier.HTTPRequest, body: HTTPBody?, options: RequestOptions, settings: OperationOptions, hasBody: Bool
    ) async throws(NetworkError) -> (HTTPTypes.HTTPResponse, HTTPBody?) {
        var endpoint = try endpoint(for: request)
        endpoint.options = options
        if let body {
            let bytes: Data
            do {
                bytes = try await Data(collecting: body, upTo: settings.maxQueuedBodyBytes)
            } catch {
                throw .encodingError(underlying: error)
            }
            let type = request.headers["Content-Type"] ?? "application/octet-stream"
            endpoint.body = .data(bytes, contentType: type)
        }
        switch try await client.offline.send(endpoint) {
        case .sent(let response):
            return Self.whole(response.response, hasBody: hasBody)
        case .queued(let id):
            var fields = HTTPFields()
            if let name = HTTPField.Name(Self.queuedItemHeader) { fields[name] = String(id) }
            return (HTTPTypes.HTTPResponse(status: .accepted, headerFields: fields), nil)
        }
    }

    /// `request` as an endpoint under the client's base URL (what the offline queue stores).
    private func endpoint(for request: Courier.HTTPRequest) throws(NetworkError) -> Endpoint<Data> {
        let base = client.configuration.baseURL.absoluteString
        let prefix = base.hasSuffix("/") ? base : base + "/"
        let url = request.url.absoluteString
        guard url.hasPrefix(prefix) || url + "/" == prefix else {
            throw .invalidRequest("a write queued offline must go to a URL under the client's base URL \(base), not \(url)")
        }
        let rest = url.dropFirst(min(prefix.count, url.count)).split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0])
        let query = parts.count > 1 ? URLComponents(string: "?" + parts[1])?.queryItems ?? [] : []
        let segments = path.split(separator: "/").map { $0.removingPercentEncoding ?? String($0) }
        var endpoint = Endpoint<Data>(segments: segments, method: request.method, query: query, headers: request.headers)
        endpoint.hasTrailingSlash = path.hasSuffix("/")
        return endpoint
    }
}
