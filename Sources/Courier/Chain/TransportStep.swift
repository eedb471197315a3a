import Foundation

/// The last step: one exchange with the transport, within the attempt's time and the bytes the
/// response may still have. With a stream asked for (``CallSettings/stream``), a 2xx is
/// handed back at the end of its head, its body still arriving (``HTTPResponse/streamedBody``);
/// any other status's body is read here, so redirects, retries and the 401 renewal are
/// decided before a body byte reaches the caller.
struct TransportStep: Interceptor {
    let transport: any HTTPTransport

    func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
        try await exchange(request, chain.call)
    }

    private nonisolated(nonsending) func exchange(_ request: HTTPRequest, _ call: ChainCall) async throws(NetworkError) -> HTTPResponse {
        var request = request
        let left = call.attemptEnd.at - call.client.clock.now
        guard left > .zero else { throw .timeout(call.attemptEnd.limit, underlying: nil) }
        request.timeout = left
        request.maximumResponseSize = call.responseBytesLeft
        call.record.sending(request)
        // What goes on the wire: with progress asked for, the body as a counted stream.
        let sent = call.options.uploadProgress.map { Self.reportingUpload(of: request, to: $0) } ?? request
        let clientLimit = call.client.maxResponseBytes
        var response: HTTPResponse
        do {
            if let webSocket = call.settings.webSocket {
                response = try await transport.upgrade(sent, webSocket: webSocket)
            } else if let stream = call.settings.stream {
                response = try await streamed(sent, stream, bodyLimit: call.responseBytesLeft, clientLimit: clientLimit)
            } else {
                response = try await transport.send(sent)
            }
        } catch .timeout(_, let cause) {
            throw .timeout(call.attemptEnd.limit, underlying: cause)
        } catch .responseTooLarge(let bound) where call.settings.stream != nil {
            // The stream's own limit (the transport's) or, for an error's body, the client's.
            throw .responseTooLarge(limit: bound)
        } catch .responseTooLarge {
            throw .responseTooLarge(limit: clientLimit)
        }
        if response.status == 401, !request.headers.contains("Authorization") { response.answersUnauthenticatedRequest = true }
        return response
    }

    /// `request` with its body (bytes or a stream) sent as a stream that tells `handler` its
    /// progress.
    private static func reportingUpload(of request: HTTPRequest, to handler: @escaping @Sendable (TransferProgress) -> Void) -> HTTPRequest {
        var request = request
        guard let stream = request.bodyStream ?? request.body.map(HTTPBodyStream.data) else { return request }
        request.body = nil
        request.bodyStream = stream.reportingProgress(to: ProgressReporter(total: stream.length.map(Int64.init), handler: handler))
        return request
    }

    /// One streamed exchange: a 2xx is returned at its head, its body in
    /// ``HTTPResponse/streamedBody`` (limited by `stream`'s own size); any other status's body
    /// is read within `bodyLimit`.
    private nonisolated(nonsending) func streamed(
        _ request: HTTPRequest, _ stream: StreamSettings, bodyLimit: Int, clientLimit: Int
    ) async throws(NetworkError) -> HTTPResponse {
        var request = request
        // The transport's limit admits either body; a 2xx is held to the stream's below.
        let transportLimit = max(stream.maxBytes, bodyLimit)
        request.maximumResponseSize = transportLimit
        var (response, bytes): (HTTPResponse, ResponseBytes)
        do {
            (response, bytes) = try await transport.stream(request, stallTimeout: stream.stallTimeout)
        } catch .responseTooLarge {
            // A head that declared more than both limits: the caller asked for `maxBytes`.
            throw .responseTooLarge(limit: stream.maxBytes)
        }
        if response.isSuccess {
            if stream.maxBytes < transportLimit {
                if request.method != .head, response.status != 204,
                    let length = response.headers["Content-Length"].flatMap({ Int($0) }), length > stream.maxBytes {
                    bytes.cancel()
                    throw .responseTooLarge(limit: stream.maxBytes)
                }
                bytes = bytes.limited(to: stream.maxBytes)
            }
            response.streamedBody = bytes
        } else {
            do {
                response.body = try await bytes.collect(upTo: bodyLimit)
            } catch .responseTooLarge {
                throw .responseTooLarge(limit: clientLimit)
            }
        }
        return response
    }
}
