import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: Foundation's `URLSession` (FoundationNetworking on Linux).
///
/// On top of `URLSession` it enforces the request's whole-exchange timeout and maximum response
/// size (checked against `Content-Length` up front and against the bytes as they arrive, so an
/// oversized body is never fully buffered; the deadline is checked every 50 ms by one sweeper
/// for all requests), refuses HTTPS→HTTP redirects, cancels the HTTP
/// request when the caller's task is cancelled, and maps `URLError` codes to ``NetworkError``
/// keeping the `URLError` as the cause.
public final class URLSessionTransport: HTTPTransport {
    /// The whole-exchange timeout of a request that sets none: 60 s.
    static let defaultTimeout = Duration.seconds(60)

    private let session: URLSession
    private let exchanges: URLSessionExchangeTable

    /// Creates a transport with its own `URLSession` (ephemeral: no cookies, no URL cache,
    /// since caching is Courier's job, and no redirects followed, since that is Courier's job
    /// too). Timeouts and the response size limit are per request: ``HTTPRequest/timeout``
    /// and ``HTTPRequest/maximumResponseSize``.
    public convenience init() {
        self.init(pinner: CertificatePinner())
    }

    /// A transport that enforces `certificatePinner`'s pins on every connection (see
    /// ``CertificatePinner``), on Apple platforms through the session delegate's server-trust
    /// evaluation. Throws ``NetworkError/securityError(_:)`` on Linux when there are pins:
    /// FoundationNetworking has no hook to check them, and ignoring them would be silent; use
    /// ``CurlTransport`` there.
    public convenience init(certificatePinner: CertificatePinner) throws(NetworkError) {
        #if !canImport(Darwin)
        if !certificatePinner.isEmpty {
            throw .securityError("URLSessionTransport cannot pin certificates on Linux (FoundationNetworking has no hook for it); use CurlTransport")
        }
        #endif
        self.init(pinner: certificatePinner)
    }

    private init(pinner: CertificatePinner) {
        let exchanges = URLSessionExchangeTable(pinner: pinner)
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        self.exchanges = exchanges
        self.session = URLSession(configuration: sessionConfiguration, delegate: exchanges, delegateQueue: queue)
    }

    /// Body bytes this transport has accepted, over every exchange (what the size limits let
    /// in, for tests).
    var bytesAccepted: Int { exchanges.bytesAccepted }

    deinit {
        session.invalidateAndCancel()
    }

    #if canImport(Darwin)
    /// A WebSocket task on this transport's session (its pins apply).
    func webSocketTask(with request: URLRequest) -> URLSessionWebSocketTask {
        session.webSocketTask(with: request)
    }
    #endif

    /// A body stream's reader's bytes, read whole on a Dispatch thread (a reader may block on a
    /// file; it must not on the cooperative pool). FoundationNetworking has no streamed upload that
    /// Courier can bound, so the body is held in memory.
    private static func read(_ stream: HTTPBodyStream) async throws(NetworkError) -> Data {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Data, NetworkError>, Never>) in
            DispatchQueue.global().async {
                do {
                    let reader = try stream.makeReader()
                    var body = Data()
                    while true {
                        let chunk = try reader(64 * 1024)
                        if chunk.isEmpty { break }
                        body.append(chunk)
                    }
                    if let length = stream.length, body.count != length {
                        throw HTTPBodyStream.LengthMismatch(declared: length, given: body.count)
                    }
                    continuation.resume(returning: .success(body))
                } catch {
                    continuation.resume(returning: .failure(.encodingError(underlying: error)))
                }
            }
        }
        return try result.get()
    }

    /// A produced body's bytes (``HTTPBodyStream/chunks(_:length:reopenable:)``), gathered in
    /// the caller's task: it waits suspended while the producer is behind (no thread held), its
    /// producer's task sees the caller's task-locals, and cancelling the caller stops it. Each
    /// poll runs on a Dispatch thread: a concatenation's other parts have readers that may block.
    private static func collect(_ stream: HTTPBodyStream) async throws(NetworkError) -> Data {
        let body: any PolledBody
        do {
            guard let makeProducer = stream.makeProducer else { return Data() }
            body = try makeProducer()
        } catch {
            throw .encodingError(underlying: error)
        }
        defer { body.close() }
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        var woken = wakes.makeAsyncIterator()
        var data = Data()
        while true {
            let polled = await withCheckedContinuation { (continuation: CheckedContinuation<Result<BodyProducer.Poll, any Error>, Never>) in
                DispatchQueue.global().async {
                    continuation.resume(returning: Result { try body.poll(maxLength: 64 * 1024, wake: { wake.yield() }) })
                }
            }
            let poll: BodyProducer.Poll
            do {
                poll = try polled.get()
            } catch {
                throw .encodingError(underlying: error)
            }
            switch poll {
            case .bytes(let bytes): data.append(bytes)
            case .end:
                if let length = stream.length, data.count != length {
                    throw .encodingError(underlying: HTTPBodyStream.LengthMismatch(declared: length, given: data.count))
                }
                return data
            case .later:
                // The wake stream ends (nil) when the caller is cancelled.
                _ = await woken.next()
                if Task.isCancelled { throw .cancelled }
            }
        }
    }

    /// Sends `request` over the session; see ``HTTPTransport`` for the contract.
    public func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse {
        try request.validate()
        if Task.isCancelled { throw .cancelled }
        let timeout = request.timeout ?? Self.defaultTimeout
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        // FoundationNetworking truncates this to whole seconds and uses it as an idle timer; the
        // table's sweeper is the precise timer, so URLSession's is only a backstop.
        urlRequest.timeoutInterval = timeout.inSeconds.rounded(.up) + 1
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        urlRequest.httpBody = request.body
        if let stream = request.bodyStream {
            urlRequest.httpBody = try await stream.makeProducer != nil ? Self.collect(stream) : Self.read(stream)
        }

        let task = session.dataTask(with: urlRequest)
        let exchange = URLSessionExchange(limit: request.responseSizeLimit, url: request.url)
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    // Registered first, so a completion for this task can always find its exchange.
                    exchanges.register(exchange, task: task, deadline: .now + timeout)
                    if exchange.start(continuation) {
                        task.resume()
                    } else {
                        exchanges.remove(task.taskIdentifier)
                    }
                }
            } onCancel: {
                exchange.abort(.cancelled)
                // `URLSessionTask.cancel()` waits for Foundation's work queue: never block in a
                // cancellation handler, which runs holding the cancelled task's status lock.
                DispatchQueue.global().async { task.cancel() }
            }
        } catch let error as NetworkError {
            throw error
        } catch {
            throw .unknown(underlying: error)
        }
    }
}
