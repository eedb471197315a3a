import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Courier

@Suite struct URLSessionTransportTests {
    let transport = URLSessionTransport()

    @Test("status headers and body round trip")
    func statusHeadersAndBodyRoundTrip() async throws {
        try await withScriptedServer { server in
            try await server.script("/items", method: "POST", [.json(201, #"{"id":7}"#, headers: ["X-Served-By": "script"])])
            var request = HTTPRequest(method: .post, url: URL(string: "\(server.baseURL)/items?q=a%20b")!)
            request.headers.add(name: "X-Request-ID", value: "r-1")
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = Data(#"{"name":"café"}"#.utf8)

            let response = try await transport.send(request)
            #expect(response.status == 201)
            #expect(response.headers["x-served-by"] == "script")
            #expect(response.headers["content-type"] == "application/json")
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"id":7}"#)

            let seen = try await server.requests(path: "/items")
            #expect(seen.count == 1)
            #expect(seen.first?.method == "POST")
            #expect(seen.first?.path == "/items?q=a%20b")
            #expect(seen.first?.header("x-request-id") == "r-1")
            #expect(seen.first.map { String(decoding: $0.body, as: UTF8.self) } == #"{"name":"café"}"#)
        }
    }

    @Test("error statuses are responses not errors")
    func errorStatusesAreResponsesNotErrors() async throws {
        try await withScriptedServer { server in
            try await server.script("/missing", [.json(404, #"{"message":"nope"}"#)])
            let response = try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/missing")!))
            #expect(response.status == 404)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"message":"nope"}"#)
        }
    }

    @Test("a slow server times out")
    func aSlowServerTimesOut() async throws {
        try await withScriptedServer { server in
            try await server.script("/slow", [.delayed(5, status: 200)])
            let request = HTTPRequest(url: URL(string: "\(server.baseURL)/slow")!, timeout: .milliseconds(300))
            let error = await #expect(throws: NetworkError.self) { try await transport.send(request) }
            guard case .timeout? = error else { Issue.record("expected timeout, got \(String(describing: error))"); return }
        }
    }

    @Test("cancelling the caller drops the connection")
    func cancellingTheCallerDropsTheConnection() async throws {
        try await withScriptedServer { server in
            try await server.script("/hold", [.hold])
            let transport = self.transport
            let call = Task { try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/hold")!)) }
            _ = try await server.waitForRequests(path: "/hold", count: 1)
            call.cancel()
            let error = await #expect(throws: NetworkError.self) { try await call.value }
            guard case .cancelled? = error else { Issue.record("expected cancelled, got \(String(describing: error))"); return }
            #expect(try await server.waitForDisconnect(path: "/hold"))
        }
    }

    @Test("an oversized body is refused")
    func anOversizedBodyIsRefused() async throws {
        let small = transport
        try await withScriptedServer { server in
            try await server.script("/big", [.sized(1024 * 1024)])
            try await server.script("/fits", [.sized(64 * 1024)])
            let error = await #expect(throws: NetworkError.self) {
                try await small.send(HTTPRequest(url: URL(string: "\(server.baseURL)/big")!, maximumResponseSize: 64 * 1024))
            }
            guard case .responseTooLarge(let limit)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(limit == 64 * 1024)
            let fits = try await small.send(HTTPRequest(url: URL(string: "\(server.baseURL)/fits")!, maximumResponseSize: 64 * 1024))
            #expect(fits.body.count == 64 * 1024)
        }
    }

    /// URLRequest's timeout is an idle timeout: a body that keeps arriving never trips it.
    /// The transport's deadline covers the whole exchange.
    @Test("a trickling body still meets the deadline")
    func aTricklingBodyStillMeetsTheDeadline() async throws {
        try await withScriptedServer { server in
            try await server.script("/trickle", [.trickled(300, every: 0.1)])     // 30 s in all
            let request = HTTPRequest(url: URL(string: "\(server.baseURL)/trickle")!, timeout: .milliseconds(500))
            let started = ContinuousClock.now
            let error = await #expect(throws: NetworkError.self) { try await transport.send(request) }
            guard case .timeout? = error else { Issue.record("expected timeout, got \(String(describing: error))"); return }
            // Well before the body would end (30 s); the margin is wide because under
            // ThreadSanitizer, with the rest of the suite beside it, the timer lagged by over 5 s.
            #expect(ContinuousClock.now - started < .seconds(20))
        }
    }

    @Test("the transport never follows a redirect: the 3xx is the response")
    func theTransportNeverFollowsARedirect() async throws {
        try await withScriptedServer { server in
            try await server.script("/old", [.status(302, headers: ["Location": "/new"])])
            try await server.script("/new", [.json(200, #"{"moved":true}"#)])
            let answer = try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/old")!))
            #expect(answer.status == 302)
            #expect(answer.headers["Location"] == "/new")
            #expect(try await server.requests(path: "/new").isEmpty)
        }
    }

    @Test("a refused connection is no connection")
    func aRefusedConnectionIsNoConnection() async throws {
        let server = try await ScriptedServer.start()
        let url = URL(string: "\(server.baseURL)/gone")!
        server.stopAndWait()
        let error = await #expect(throws: NetworkError.self) {
            try await transport.send(HTTPRequest(url: url, timeout: .seconds(10)))
        }
        guard case .noConnection(let cause)? = error else { Issue.record("expected noConnection, got \(String(describing: error))"); return }
        #expect((cause as? URLError)?.code == .cannotConnectToHost)
    }

    @Test("header injection is rejected before anything is sent")
    func headerInjectionIsRejectedBeforeAnythingIsSent() async throws {
        try await withScriptedServer { server in
            try await server.script("/echo", [.echo])
            var request = HTTPRequest(url: URL(string: "\(server.baseURL)/echo")!)
            request.headers.add(name: "X-Note", value: "a\r\nX-Injected: 1")
            await #expect(throws: NetworkError.self) { try await transport.send(request) }
            #expect(try await server.requests().isEmpty)
        }
    }

    @Test("url errors map to the error model")
    func urlErrorsMapToTheErrorModel() {
        let noConnection: [URLError.Code] = [.notConnectedToInternet, .cannotConnectToHost, .networkConnectionLost, .dnsLookupFailed, .cannotFindHost]
        for code in noConnection {
            guard case .noConnection(let cause) = NetworkError(URLError(code)) else {
                Issue.record("\(code) should be noConnection"); continue
            }
            #expect((cause as? URLError)?.code == code)
        }
        guard case .timeout(.attempt, let cause) = NetworkError(URLError(.timedOut)) else { Issue.record("timedOut"); return }
        #expect((cause as? URLError)?.code == .timedOut)
        guard case .cancelled = NetworkError(URLError(.cancelled)) else { Issue.record("cancelled"); return }
        guard case .securityError = NetworkError(URLError(.serverCertificateUntrusted)) else { Issue.record("certificate"); return }
        guard case .unknown(let other) = NetworkError(URLError(.badServerResponse)) else { Issue.record("other"); return }
        #expect((other as? URLError)?.code == .badServerResponse)
        #expect(NetworkError(URLError(.timedOut)).isRetryable)
    }
}
