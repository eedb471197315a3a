import Foundation

extension APIClient {
    /// Opens a WebSocket to `endpoint`'s URL (from the base URL, as every endpoint's) and
    /// returns it open.
    ///
    /// ```swift
    /// var options = WebSocketOptions()
    /// options.subprotocols = ["graphql-transport-ws"]
    /// let socket = try await client.webSocket(Endpoint<Data>(path: "graphql"), options: options)
    /// ```
    ///
    /// The handshake passes the client's chain as a request does: your interceptors, the
    /// security guard (`https`, that is `wss`; plain `http`/`ws` only to loopback or allowed
    /// hosts), auth (a 401 renews the session's token and the handshake is sent again), logging,
    /// admission, retries, the endpoint's timeout; never the cache or the offline queue. Over
    /// ``CurlTransport`` the transport's TLS settings, pins and proxy apply; on Apple platforms
    /// URLSession's WebSocket task runs it.
    /// - Throws: as ``send(_:)`` for an answer other than 101 (`unauthorized`, `notFound`, …);
    ///   ``NetworkError/invalidResponse(_:)`` for a 101 that does not complete the handshake
    ///   (its accept key, a subprotocol not offered).
    public func webSocket<Value>(_ endpoint: Endpoint<Value>, options: WebSocketOptions = WebSocketOptions()) async throws(NetworkError) -> WebSocket {
        try await webSocket(for: try makeRequest(endpoint.untyped), requestOptions: endpoint.options, options: options)
    }

    /// Opens a WebSocket to an absolute `ws`, `wss`, `http` or `https` URL, through the
    /// client's chain as ``webSocket(_:options:)`` does.
    public func webSocket(url: URL, headers: HTTPHeaders = [:], options: WebSocketOptions = WebSocketOptions()) async throws(NetworkError) -> WebSocket {
        try await webSocket(for: try Self.webSocketRequest(url: url, headers: headers), requestOptions: RequestOptions(), options: options)
    }

    /// A WebSocket to `endpoint` that connects again after a drop, under `reconnection`, as a
    /// sequence of ``WebSocketEvent``s (``WebSocketEvents`` says when it ends). Each connection
    /// opens as ``webSocket(_:options:)`` does; nothing is sent before the first iteration.
    ///
    /// ```swift
    /// for try await event in client.webSocketEvents(Endpoint<Data>(path: "feed")) {
    ///     if case .message(let message) = event { print(message) }
    /// }
    /// ```
    public func webSocketEvents<Value>(
        _ endpoint: Endpoint<Value>, options: WebSocketOptions = WebSocketOptions(), reconnection: WebSocketReconnection = .default
    ) -> WebSocketEvents {
        let request = Result { () throws(NetworkError) in try makeRequest(endpoint.untyped) }
        return webSocketEvents(request, requestOptions: endpoint.options, options: options, reconnection: reconnection)
    }

    /// ``webSocketEvents(_:options:reconnection:)`` to an absolute `ws`, `wss`, `http` or
    /// `https` URL.
    public func webSocketEvents(
        url: URL, headers: HTTPHeaders = [:], options: WebSocketOptions = WebSocketOptions(), reconnection: WebSocketReconnection = .default
    ) -> WebSocketEvents {
        let request = Result { () throws(NetworkError) in try Self.webSocketRequest(url: url, headers: headers) }
        return webSocketEvents(request, requestOptions: RequestOptions(), options: options, reconnection: reconnection)
    }

    private func webSocketEvents(
        _ request: Result<HTTPRequest, NetworkError>, requestOptions: RequestOptions, options: WebSocketOptions,
        reconnection: WebSocketReconnection
    ) -> WebSocketEvents {
        let chain = components.chain
        return WebSocketEvents(
            open: { () throws(NetworkError) in
                try await Self.openWebSocket(for: try request.get(), requestOptions: requestOptions, options: options, chain: chain)
            },
            reconnection: reconnection, connectivity: Self.webSocketConnectivity(components),
            clock: chain.settings.clock, random: chain.settings.random)
    }

    /// The handshake request for an absolute WebSocket URL: `ws` is sent as `http`, `wss` as
    /// `https`.
    private static func webSocketRequest(url: URL, headers: HTTPHeaders) throws(NetworkError) -> HTTPRequest {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), let scheme = components.scheme?.lowercased() else {
            throw .invalidURL(url.absoluteString)
        }
        switch scheme {
        case "ws", "http": components.scheme = "http"
        case "wss", "https": components.scheme = "https"
        default: throw .invalidURL("a WebSocket URL is ws, wss, http or https: \(url.absoluteString)")
        }
        guard let httpURL = components.url, components.host?.isEmpty == false else { throw .invalidURL(url.absoluteString) }
        return HTTPRequest(url: httpURL, headers: headers)
    }

    /// The connectivity monitor's view for reconnecting sockets (never offline without one).
    static func webSocketConnectivity(_ components: ClientComponents) -> WebSocketConnectivity {
        guard let offline = components.offline else { return .none }
        return WebSocketConnectivity(isOffline: { offline.connectivity.value == .offline }, untilOnline: { await offline.untilOnline() })
    }

    private func webSocket(for request: HTTPRequest, requestOptions: RequestOptions, options: WebSocketOptions) async throws(NetworkError) -> WebSocket {
        try await Self.openWebSocket(for: request, requestOptions: requestOptions, options: options, chain: components.chain)
    }

    /// Opens a WebSocket with `request` as its handshake, through `chain` (GraphQL's sockets
    /// open here too).
    static func openWebSocket(
        for request: HTTPRequest, requestOptions: RequestOptions, options: WebSocketOptions, chain: RequestChain
    ) async throws(NetworkError) -> WebSocket {
        let settings = chain.settings
        for name in options.subprotocols where !HTTPSyntax.isToken(name) {
            throw .invalidRequest("a WebSocket subprotocol must be an HTTP token: \"\(name)\"")
        }
        let handshake = WebSocketHandshake(
            random: settings.random, subprotocols: options.subprotocols, offersCompression: options.compression)
        var callSettings = CallSettings()
        callSettings.webSocket = options
        var response = try await chain.send(handshake.upgradeRequest(request), options: requestOptions, settings: callSettings)
        guard response.status == 101, let backend = response.upgradedConnection as? any WebSocketBackend else {
            response.upgradedConnection?.abort(.cancelled)
            throw NetworkError(response: response) ?? .invalidResponse("the WebSocket handshake was answered \(response.status), not 101")
        }
        response.upgradedConnection = nil
        let subprotocol = response.headers["Sec-WebSocket-Protocol"]?.trimmingCharacters(in: .whitespaces)
        return WebSocket(response: response, subprotocol: subprotocol?.isEmpty == false ? subprotocol : nil, backend: backend,
                         options: options, clock: settings.clock, random: settings.random)
    }
}
