#if os(Linux)
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A server that cannot be reached is not the device offline (issue 34): through the whole
/// client, over each transport, the error names the host and port and why, and neither its
/// description nor its user message says "No internet connection".
@Suite struct ConnectionFailureTests {
    /// A client of `baseURL` over `kind`'s transport, never retrying.
    private func api(_ baseURL: URL, _ kind: NetworkTransport) -> APIClient {
        client(baseURL, transport: kind.make(), retryPolicy: .never) { $0.security = nil }
    }

    /// What a GET of `path` on `api` threw.
    private func failure(_ api: APIClient, _ path: String = "ping") async -> NetworkError? {
        await #expect(throws: NetworkError.self) { try await api.data(for: Endpoint<EmptyResponse>(path: path)) }
    }

    private func expectNotOffline(_ error: NetworkError?, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error else { return }
        #expect(!error.description.contains("offline"), "\(error)", sourceLocation: sourceLocation)
        #expect(!error.userMessage(using: .english).contains("internet"), sourceLocation: sourceLocation)
        #expect(!error.userMessage(using: .spanish).contains("internet"), sourceLocation: sourceLocation)
        #expect(error.category == .transport, sourceLocation: sourceLocation)
    }

    @Test("a refused connection to a closed loopback port: cannotConnect 127.0.0.1:<port>, refused, retryable", arguments: NetworkTransport.allCases)
    func refused(kind: NetworkTransport) async throws {
        let refusing = try RefusingLoopbackPort()
        defer { withExtendedLifetime(refusing) {} }
        let port = refusing.port
        let client = api(URL(string: "http://127.0.0.1:\(port)")!, kind)
        let error = await failure(client)
        guard case .cannotConnect("127.0.0.1", port, .refused, let cause?)? = error else {
            Issue.record("got \(String(describing: error))"); return
        }
        #expect(error?.description.hasPrefix("cannotConnect 127.0.0.1:\(port): connection refused (cause: ") == true)
        #expect(error?.userMessage(using: .english) == "The server cannot be reached right now. Please try again later.")
        #expect(error?.isRetryable == true)
        #expect(error?.underlyingError != nil && "\(cause)".isEmpty == false)
        expectNotOffline(error)
        await client.shutdown()
    }

    @Test("a name that does not resolve (.invalid): cannotConnect <host>:80, host not found, not retried", arguments: NetworkTransport.allCases)
    func hostNotFound(kind: NetworkTransport) async throws {
        let client = api(URL(string: "http://courier-test.invalid")!, kind)
        let error = await failure(client)
        guard case .cannotConnect("courier-test.invalid", 80, .hostNotFound, _)? = error else {
            Issue.record("got \(String(describing: error))"); return
        }
        #expect(error?.description.hasPrefix("cannotConnect courier-test.invalid:80: host not found") == true)
        #expect(error?.isRetryable == false)
        expectNotOffline(error)
        await client.shutdown()
    }

    @Test("a proxy whose name does not resolve: cannotConnect to the server asked for, reason proxy, the proxy named in the cause")
    func proxyNotFound() async throws {
        var configuration = CurlTransport.Configuration()
        configuration.proxy = .url(URL(string: "http://courier-proxy.invalid:3128")!)
        let client = client(URL(string: "http://api.courier-test.example:8080")!, transport: CurlTransport(configuration: configuration),
                            retryPolicy: .never) { $0.security = nil }
        let error = await failure(client)
        guard case .cannotConnect("api.courier-test.example", 8080, .proxy, let cause)? = error else {
            Issue.record("got \(String(describing: error))"); return
        }
        #expect((cause as? CurlError)?.code == 5)
        #expect(error?.description.hasPrefix("cannotConnect api.courier-test.example:8080: the proxy failed") == true)
        #expect("\(String(describing: cause))".contains("courier-proxy.invalid"))
        #expect(error?.isRetryable == false)
        expectNotOffline(error)
        await client.shutdown()
    }

    @Test("a TLS handshake with a server that does not speak TLS: cannotConnect 127.0.0.1:<port>, TLS handshake failed")
    func tlsHandshake() async throws {
        #if canImport(CCurl)
        try await withScriptedServer { server in
            try await server.script("/ping", [.status(200)])
            let port = try #require(server.baseURL.port)
            let client = api(URL(string: "https://127.0.0.1:\(port)")!, .curl)
            let error = await failure(client)
            guard case .cannotConnect("127.0.0.1", port, .tlsHandshake, let cause)? = error else {
                Issue.record("got \(String(describing: error))"); return
            }
            #expect((cause as? CurlError)?.code == 35)
            #expect(error?.description.hasPrefix("cannotConnect 127.0.0.1:\(port): TLS handshake failed") == true)
            #expect(error?.isRetryable == false)
            expectNotOffline(error)
            #expect(try await server.requests(path: "/ping").isEmpty)   // no request reached it
            await client.shutdown()
        }
        #endif
    }

    @Test("a POST to a refused server is tried again (nothing was sent), and each attempt is refused the same way")
    func refusedPostIsRetried() async throws {
        let port = try unusedLoopbackPort()
        let policy = RetryPolicy(maxAttempts: 3, retryableStatusCodes: [], backoff: .immediate, jitter: false)
        let counting = ScriptedTransport(fallback: .fail(.cannotConnect(host: "127.0.0.1", port: port, reason: .refused, underlying: nil)))
        let client = client(URL(string: "http://127.0.0.1:\(port)")!, transport: counting, retryPolicy: policy)
        let error = await #expect(throws: NetworkError.self) {
            try await client.send(Endpoint<EmptyResponse>(path: "orders", method: .post, body: ["n": 1]))
        }
        guard case .cannotConnect(_, port, .refused, _)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(counting.requests(to: "/orders").count == 3)
        await client.shutdown()
    }
}
#endif
