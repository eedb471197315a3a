/// A call whose 2xx body is handed over as it arrives (``APIClient/bytes(for:stallTimeout:maxBytes:)``,
/// downloads, Server-Sent Events, GraphQL subscriptions): the chain's steps, except the cache,
/// decided on the head; any other status throws with its body read.
@usableFromInline
struct StreamedCall: Sendable {
    /// The longest wait for the next body bytes, unless the caller says otherwise.
    @usableFromInline static let defaultStallTimeout: Duration = .seconds(60)

    let chain: RequestChain

    /// Sends `request` and returns the response at the end of its head, with its body to read.
    func bytes(
        for request: HTTPRequest, options: RequestOptions, settings: CallSettings = CallSettings(), stallTimeout: Duration, maxBytes: Int
    ) async throws(NetworkError) -> (HTTPResponse, ResponseBytes) {
        guard stallTimeout > .zero, maxBytes >= 0 else {
            throw .invalidRequest("a stream needs a positive stall timeout and a size limit of 0 or more")
        }
        var settings = settings
        settings.stream = StreamSettings(stallTimeout: stallTimeout, maxBytes: maxBytes)
        var response = try await chain.send(request, options: options, settings: settings)
        if let error = NetworkError(response: response) {
            response.streamedBody?.cancel()
            throw error
        }
        // (An interceptor's response, without a stream: its body as one chunk.)
        var body = response.takeBody()
        if let progress = options.downloadProgress {
            let total = response.headers["Content-Length"].flatMap { Int64($0) }
            body = body.reportingProgress(to: ProgressReporter(total: total, handler: progress))
        }
        return (response, body)
    }
}
