import Foundation

extension APIClient {
    /// The default ``bytes(for:stallTimeout:maxBytes:)`` stall timeout: the longest wait for
    /// the next body bytes.
    public static let defaultStallTimeout: Duration = .seconds(60)

    /// Sends `endpoint` and returns the response at the end of its head, with its body to read
    /// as it arrives.
    ///
    /// ```swift
    /// let (response, bytes) = try await client.bytes(for: Endpoint<Data>(path: "export"))
    /// for try await chunk in bytes { try output.write(contentsOf: chunk) }
    /// ```
    ///
    /// The call passes the same steps as ``send(_:)`` (interceptors, the security guard, auth,
    /// logging, redirects, retries and the 401 renewal, all decided on the head, before any body
    /// byte reaches you), except the cache: a stream is never cached. The endpoint's timeout
    /// bounds the time to the head; after it, `stallTimeout` bounds each wait for more bytes.
    /// The body is bounded by `maxBytes` (not the client's `maxResponseBytes`), and by memory:
    /// the transport holds a bounded amount unread. Dropping or cancelling ``ResponseBytes``
    /// closes the exchange.
    /// - Throws: as ``send(_:)``: statuses other than 2xx (and a 3xx not followed) throw, with
    ///   the error body read (within `maxResponseBytes`).
    public func bytes<Value>(
        for endpoint: Endpoint<Value>, stallTimeout: Duration = APIClient.defaultStallTimeout, maxBytes: Int = .max
    ) async throws(NetworkError) -> (HTTPResponse, ResponseBytes) {
        try await bytes(for: try makeRequest(endpoint.untyped), options: endpoint.options, stallTimeout: stallTimeout, maxBytes: maxBytes)
    }

    /// Sends a request you built yourself as ``bytes(for:stallTimeout:maxBytes:)`` sends an
    /// endpoint's.
    public func bytes(
        for request: HTTPRequest, options: RequestOptions = RequestOptions(),
        stallTimeout: Duration = APIClient.defaultStallTimeout, maxBytes: Int = .max
    ) async throws(NetworkError) -> (HTTPResponse, ResponseBytes) {
        guard stallTimeout > .zero, maxBytes >= 0 else {
            throw .invalidRequest("a stream needs a positive stall timeout and a size limit of 0 or more")
        }
        var options = options
        options.stream = StreamSettings(stallTimeout: stallTimeout, maxBytes: maxBytes)
        var response = try await components.chain.send(request, options: options)
        if let error = NetworkError(response: response) {
            response.streamedBody?.cancel()
            throw error
        }
        // (An interceptor's response, without a stream: its body as one chunk.)
        let body = response.takeBody()
        return (response, body)
    }

    /// Downloads `endpoint`'s body to `fileURL` and returns the response (its body empty).
    ///
    /// ```swift
    /// let response = try await client.download(Endpoint<Data>(path: "backup.tar"), to: destination, maxBytes: 1 << 30)
    /// ```
    ///
    /// The body streams to a temporary file beside `fileURL` (memory stays bounded whatever
    /// its size), which replaces `fileURL` only once the body is complete; on any failure the
    /// temporary file is removed and `fileURL` is left as it was. Passes the chain as
    /// ``bytes(for:stallTimeout:maxBytes:)`` does. Not resumable yet.
    /// - Throws: as ``bytes(for:stallTimeout:maxBytes:)``; `responseTooLarge` past `maxBytes`;
    ///   `unknown` with the file system's error when the file cannot be written or moved.
    @discardableResult
    public func download<Value>(
        _ endpoint: Endpoint<Value>, to fileURL: URL, maxBytes: Int, stallTimeout: Duration = APIClient.defaultStallTimeout
    ) async throws(NetworkError) -> HTTPResponse {
        try await download(endpoint, to: fileURL, maxBytes: maxBytes, stallTimeout: stallTimeout, observing: nil)
    }

    /// ``download(_:to:maxBytes:stallTimeout:)``, handing the body to `observing` before it is
    /// read (tests read its buffer's high mark).
    func download<Value>(
        _ endpoint: Endpoint<Value>, to fileURL: URL, maxBytes: Int, stallTimeout: Duration,
        observing: (@Sendable (ResponseBytes) -> Void)?
    ) async throws(NetworkError) -> HTTPResponse {
        let (response, bytes) = try await bytes(for: endpoint, stallTimeout: stallTimeout, maxBytes: maxBytes)
        observing?(bytes)
        let directory = fileURL.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(fileURL.lastPathComponent).\(UUID().uuidString).download")
        do {
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                throw NetworkError.unknown(underlying: CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path]))
            }
            let file = try FileHandle(forWritingTo: temporary)
            defer { try? file.close() }
            var iterator = bytes.makeAsyncIterator()
            while let chunk = try await iterator.next() {
                try file.write(contentsOf: chunk)
            }
            try file.synchronize()
            // rename(2): the destination is replaced at once, never seen half written.
            guard rename(temporary.path, fileURL.path) == 0 else {
                throw NetworkError.unknown(underlying: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
            }
            return response
        } catch {
            bytes.cancel()
            try? FileManager.default.removeItem(at: temporary)
            if let error = error as? NetworkError { throw error }
            throw .unknown(underlying: error)
        }
    }
}
