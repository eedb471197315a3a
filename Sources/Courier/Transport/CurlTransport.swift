#if canImport(CCurl)
import CCurl
import Foundation

/// The default transport on Linux: libcurl's multi interface, driven by one thread of its own.
///
/// - One event loop thread owns libcurl's multi handle: transfers are added, cancelled and
///   completed there, and the callbacks that receive the response only copy bytes and check
///   limits, so no request can stall another and no call ever blocks Swift's cooperative pool.
/// - Connections are kept alive and reused; over `https`, HTTP/2 is negotiated by ALPN and
///   requests to one host share a connection (see ``Configuration/httpVersion``).
/// - Timeouts to the millisecond: the request's ``HTTPRequest/timeout`` (or
///   ``Configuration/Timeouts/exchange``) for the whole exchange, and a connect timeout.
/// - Cancelling the caller's task answers ``NetworkError/cancelled`` at once and removes the
///   transfer.
/// - The response size limit is enforced as bytes arrive (a `Content-Length` over it is refused
///   before the body; a compressed body is limited by its decoded size), and the response head
///   by ``Configuration/Limits/maxHeaderBytes``.
/// - Repeated response fields (`Set-Cookie`) arrive one field each, in order; informational
///   (1xx) responses are skipped; redirects are not followed (Courier follows them).
/// - TLS: the system's trust store, extra roots, a minimum version, client certificates, and
///   certificate pins checked against the whole verified chain (``CertificatePinner``).
///
/// Errors keep libcurl's code and message as a ``CurlError`` cause; see
/// `NetworkError(curl:)` for the mapping.
public final class CurlTransport: HTTPTransport {
    private let loop: CurlEventLoop
    private let settings: CurlSettings

    /// A transport with its own event loop thread and connections.
    public init(configuration: Configuration = Configuration()) {
        loop = CurlEventLoop(configuration: configuration)
        settings = CurlSettings(configuration)
    }

    deinit {
        loop.stop()
    }

    /// Sends `request`; see ``HTTPTransport`` for the contract.
    public func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse {
        try request.validate()
        let exchange = CurlExchange(
            request: request, maxHeaderBytes: settings.maxHeaderBytes,
            decodes: settings.decompression && !request.headers.contains("Accept-Encoding"))
        return try await perform(request, exchange)
    }

    /// Sends `request` and returns at the end of the final response's head, its body read as
    /// it arrives; see ``HTTPTransport/stream(_:stallTimeout:)``.
    ///
    /// Up to 1 MiB wait for the consumer; beyond that the
    /// transfer is paused (libcurl stops reading the socket) until the consumer has read them
    /// down to 256 KiB. Dropping or cancelling the body removes the
    /// transfer, which closes its connection.
    public func stream(_ request: HTTPRequest, stallTimeout: Duration) async throws(NetworkError) -> (HTTPResponse, ResponseBytes) {
        try request.validate()
        let exchange = CurlExchange(
            request: request, maxHeaderBytes: settings.maxHeaderBytes,
            decodes: settings.decompression && !request.headers.contains("Accept-Encoding"),
            headTimeout: request.timeout ?? settings.exchangeTimeout, stallTimeout: stallTimeout)
        // The buffer reaches the exchange only through the loop's commands: no cycle.
        let loop = self.loop
        exchange.stream = ResponseBodyBuffer(
            resume: { [weak exchange] in if let exchange { loop.submit(.unpause(exchange)) } },
            cancelTransfer: { [weak exchange] in if let exchange { loop.submit(.cancel(exchange)) } })
        var head = try await perform(request, exchange)
        let body = head.takeBody()
        return (head, body)
    }

    /// Opens a WebSocket: libcurl connects (TLS, pins, proxy tunnel), then the loop writes the
    /// Upgrade request and reads the answer; see ``HTTPTransport/upgrade(_:webSocket:)``. The
    /// socket is then driven by the transport's event loop: no thread of its own.
    public func upgrade(_ request: HTTPRequest, webSocket options: WebSocketOptions) async throws(NetworkError) -> HTTPResponse {
        try request.validate()
        if Task.isCancelled { throw .cancelled }
        guard let origin = request.origin, origin.scheme == "http" || origin.scheme == "https" else {
            throw .invalidURL("a WebSocket opens over http or https (ws or wss): \(request.url.absoluteString)")
        }
        let handshake = try WebSocketHandshake(request: request)
        let loop = self.loop
        guard let connection = CurlWebSocketConnection(
            request: request, handshake: handshake, options: options, maxHeadBytes: settings.maxHeaderBytes,
            wake: { loop.submit(.nudge) })
        else {
            throw .unknown(underlying: CurlError(code: 27, message: "libcurl could not make a handle"))
        }
        try connection.handle.prepareConnectOnly(request, origin: origin, settings: settings)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if connection.start(continuation), !loop.submit(.webSocket(connection)) {
                    connection.answer(.failure(.cancelled))
                }
            }
        } onCancel: {
            if connection.answer(.failure(.cancelled)) { loop.submit(.nudge) }
        }
        return try connection.takeAnswer().get()
    }

    /// Runs `exchange` for the validated `request` until the loop answers it.
    private func perform(_ request: HTTPRequest, _ exchange: CurlExchange) async throws(NetworkError) -> HTTPResponse {
        if Task.isCancelled { throw .cancelled }
        let origin = request.origin
        guard let handle = loop.takeHandle() else {
            throw .unknown(underlying: CurlError(code: 27, message: "libcurl could not make an easy handle"))
        }
        do {
            try handle.prepare(request, origin: origin, for: exchange, settings: settings)
            try exchange.startProducer()
        } catch {
            loop.recycle(handle)
            throw error
        }
        let loop = self.loop
        if request.bodyStream?.makeProducer != nil {
            exchange.resumeSending = { [weak exchange] in if let exchange { loop.submit(.resumeSending(exchange)) } }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if !exchange.start(continuation) {
                    loop.recycle(handle)   // cancelled before it started
                } else if !loop.submit(.add(handle)) {
                    exchange.answer(.failure(.cancelled))
                    loop.recycle(handle)
                }
            }
        } onCancel: {
            // Once answered (a streamed head), the body is the consumer's to cancel.
            if exchange.answer(.failure(.cancelled)) { loop.submit(.cancel(exchange)) }
        }
        return try exchange.takeAnswer().get()
    }
}

/// A ``CurlTransport/Configuration`` in the form each request reads it.
struct CurlSettings: @unchecked Sendable {
    // Invariant: `extraRoots` is a copy of the configuration's path that is never freed or
    // written (a transport may be made and dropped many times; the few bytes stay).
    let connectTimeout: Duration
    let exchangeTimeout: Duration
    let maxHeaderBytes: Int
    let decompression: Bool
    let http2: Bool
    let minimumTLSVersion: Int
    let clientCertificate: CurlTransport.Configuration.TLS.ClientCertificate?
    let pins: CertificatePinner
    let extraRoots: UnsafePointer<CChar>?
    /// Whether connections trust libcurl's CA file alone, without its CA directory: only then
    /// does libcurl keep the parsed roots for the multi handle's later connections instead of
    /// parsing the whole file again for each one. True when that file exists.
    let trustsCAFileOnly: Bool
    /// `CURLOPT_PROXY`: nil leaves libcurl to read the environment; "" is no proxy.
    let proxy: String?

    init(_ configuration: CurlTransport.Configuration) {
        connectTimeout = configuration.timeouts.connect
        exchangeTimeout = configuration.timeouts.exchange
        maxHeaderBytes = configuration.limits.maxHeaderBytes
        decompression = configuration.decompression
        http2 = configuration.httpVersion == .automatic
        minimumTLSVersion = configuration.tls.minimumVersion == .v1_3 ? CURL_SSLVERSION_TLSv1_3 : CURL_SSLVERSION_TLSv1_2
        clientCertificate = configuration.tls.clientCertificate
        pins = configuration.tls.pins
        extraRoots = configuration.tls.extraRootsFile.map { UnsafePointer(strdup($0)) }
        trustsCAFileOnly = !configuration.tls.trustsCADirectory && Self.libcurlCAFileExists
        switch configuration.proxy {
        case .none: proxy = ""
        case .environment: proxy = nil
        case .url(let url): proxy = url.absoluteString
        }
    }

    /// Whether the CA file libcurl was built to trust (`CURLINFO_CAINFO`) exists; read once.
    private static let libcurlCAFileExists: Bool = {
        CurlEventLoop.initializeLibcurl
        guard let easy = curl_easy_init() else { return false }
        defer { curl_easy_cleanup(easy) }
        var pointer: UnsafeMutableRawPointer?
        guard courier_easy_get_pointer(easy, CURLINFO_CAINFO, &pointer) == CURLE_OK, let pointer else { return false }
        return FileManager.default.fileExists(atPath: String(cString: pointer.assumingMemoryBound(to: CChar.self)))
    }()
}
#endif
