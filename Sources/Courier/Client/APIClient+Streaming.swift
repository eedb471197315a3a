import Foundation

extension APIClient {
    /// The default ``bytes(for:stallTimeout:maxBytes:)`` stall timeout: the longest wait for
    /// the next body bytes.
    public static let defaultStallTimeout: Duration = StreamedCall.defaultStallTimeout

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
        try await StreamedCall(chain: components.chain).bytes(for: request, options: options, stallTimeout: stallTimeout, maxBytes: maxBytes)
    }

    /// Downloads `endpoint`'s body to `fileURL` and returns the response (its body empty).
    ///
    /// ```swift
    /// let response = try await client.download(Endpoint<Data>(path: "backup.tar"), to: destination, maxBytes: 1 << 30)
    /// ```
    ///
    /// The body streams to a temporary file beside `fileURL` (memory stays bounded whatever
    /// its size, and the disk is written off Swift's cooperative pool), which replaces
    /// `fileURL` only once the body is complete and on disk (`fsync`). Passes the chain as
    /// ``bytes(for:stallTimeout:maxBytes:)`` does; the endpoint's
    /// ``RequestOptions/downloadProgress`` is told the bytes written.
    ///
    /// - `resumable: false` (the default): on any failure the temporary file is removed.
    /// - `resumable: true`: a failed or cancelled download keeps its bytes in `.<name>.partial`
    ///   beside `fileURL` (when the response had a strong `ETag` or a `Last-Modified`), and the
    ///   next resumable download of the same URL to the same `fileURL` asks only for the rest:
    ///   `Range: bytes=<kept>-` with `If-Range: <validator>`. A 206 continues the file; a 200
    ///   (the resource changed, or the server ignores ranges) starts it again from its first
    ///   byte; a 416 drops the kept bytes and downloads the whole. `Accept-Encoding: identity`
    ///   is sent, so the bytes kept are the bytes the server counts.
    ///
    /// `maxBytes` bounds the whole file (kept bytes included), not the client's
    /// `maxResponseBytes`. The response returned is the last one: a 206 when resumed.
    /// - Throws: as ``bytes(for:stallTimeout:maxBytes:)``; `responseTooLarge` past `maxBytes`;
    ///   `invalidResponse` for a 206 that does not start where asked; `unknown` with the file
    ///   system's error when the file cannot be written or moved.
    @discardableResult
    public func download<Value>(
        _ endpoint: Endpoint<Value>, to fileURL: URL, maxBytes: Int, resumable: Bool = false,
        stallTimeout: Duration = APIClient.defaultStallTimeout
    ) async throws(NetworkError) -> HTTPResponse {
        try await download(endpoint, to: fileURL, maxBytes: maxBytes, resumable: resumable, stallTimeout: stallTimeout, observing: nil)
    }

    /// ``download(_:to:maxBytes:resumable:stallTimeout:)``, handing the body to `observing`
    /// before it is read (tests read its buffer's high mark).
    func download<Value>(
        _ endpoint: Endpoint<Value>, to fileURL: URL, maxBytes: Int, resumable: Bool = false, stallTimeout: Duration,
        observing: (@Sendable (ResponseBytes) -> Void)?
    ) async throws(NetworkError) -> HTTPResponse {
        var request = try makeRequest(endpoint.untyped)
        let partial = resumable ? PartialDownload.resumable(for: fileURL) : .single(for: fileURL)
        var offset = 0
        if resumable {
            request.headers["Accept-Encoding"] = "identity"
            let url = request.url
            if let point = await DownloadFile.perform({ partial.resumePoint(for: url) }) {
                offset = point.offset
                request.headers["Range"] = "bytes=\(offset)-"
                request.headers["If-Range"] = point.validator
            } else {
                await DownloadFile.perform { partial.discard() }
            }
        }
        var options = endpoint.options
        let progress = options.downloadProgress
        options.downloadProgress = nil   // told here, with the kept bytes counted
        let response: HTTPResponse
        var bytes: ResponseBytes
        do {
            (response, bytes) = try await self.bytes(for: request, options: options, stallTimeout: stallTimeout, maxBytes: maxBytes)
        } catch let error where offset > 0 && error.statusCode == 416 {
            // The kept bytes are no part of what the server has now: start again, whole.
            await DownloadFile.perform { partial.discard() }
            return try await download(endpoint, to: fileURL, maxBytes: maxBytes, resumable: true, stallTimeout: stallTimeout, observing: observing)
        }
        observing?(bytes)
        do {
            // Where the body's bytes go in the file, where they end, and the file's whole size,
            // when known.
            var start = 0
            var end = response.headers["Content-Length"].flatMap { Int($0) }
            var total = end
            if response.status == 206 {
                guard let range = PartialDownload.contentRange(of: response), range.start == offset else {
                    // What the server counts no longer matches what is kept.
                    await DownloadFile.perform { partial.discard() }
                    throw NetworkError.invalidResponse(
                        "the 206 answering Range bytes=\(offset)- has Content-Range \(response.headers["Content-Range"] ?? "(none)")")
                }
                start = offset
                end = range.end + 1
                total = range.complete
            }
            if let total, total > maxBytes { throw NetworkError.responseTooLarge(limit: maxBytes) }
            // The file is cut to where these bytes go before the record names their validator:
            // a crash between the two never leaves old bytes under a new validator.
            let file = try await DownloadFile.open(url: partial.file, from: start)
            do {
                if resumable {
                    let (url, validator) = (request.url, PartialDownload.validator(of: response))
                    try await DownloadFile.perform { try partial.record(url: url, validator: validator) }
                }
                if let progress {
                    bytes = bytes.reportingProgress(to: ProgressReporter(total: total.map(Int64.init), completed: Int64(start), handler: progress))
                }
                var written = start
                for try await chunk in bytes {
                    written += chunk.count
                    if written > maxBytes { throw NetworkError.responseTooLarge(limit: maxBytes) }
                    try await file.append(chunk)
                }
                // A body without a length of its own (chunked) that ends early ends here.
                if let end, written != end {
                    throw NetworkError.malformedResponse("the body ended at byte \(written) of \(end)", underlying: nil)
                }
                try await file.finish()
                await file.close()
            } catch {
                await file.close()
                throw error
            }
            try await DownloadFile.perform { try partial.complete(at: fileURL) }
            return response
        } catch {
            bytes.cancel()
            let keep = resumable
            await DownloadFile.perform { if !(keep && partial.isKept) { partial.discard() } }
            if let error = error as? NetworkError { throw error }
            throw .unknown(underlying: error)
        }
    }
}
