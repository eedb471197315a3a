import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Courier

/// The transports Courier ships for real networks, each held to ``HTTPTransport``'s contract.
enum NetworkTransport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    #if canImport(CCurl)
    case curl
    #endif
    case urlSession

    var testDescription: String { rawValue }

    /// A new transport of this kind, with its defaults.
    func make() -> any HTTPTransport {
        switch self {
        #if canImport(CCurl)
        case .curl: CurlTransport()
        #endif
        case .urlSession: URLSessionTransport()
        }
    }
}

/// ``HTTPTransport``'s contract, over every transport against the scripted server.
@Suite struct HTTPTransportContractTests {

    @Test("status headers and body round trip", arguments: NetworkTransport.allCases)
    func statusHeadersAndBodyRoundTrip(kind: NetworkTransport) async throws {
        let transport = kind.make()
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

    @Test("error statuses are responses not errors", arguments: NetworkTransport.allCases)
    func errorStatusesAreResponsesNotErrors(kind: NetworkTransport) async throws {
        let transport = kind.make()
        try await withScriptedServer { server in
            try await server.script("/missing", [.json(404, #"{"message":"nope"}"#)])
            let response = try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/missing")!))
            #expect(response.status == 404)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"message":"nope"}"#)
        }
    }

    @Test("a slow server times out", arguments: NetworkTransport.allCases)
    func aSlowServerTimesOut(kind: NetworkTransport) async throws {
        let transport = kind.make()
        try await withScriptedServer { server in
            try await server.script("/slow", [.delayed(5, status: 200)])
            let request = HTTPRequest(url: URL(string: "\(server.baseURL)/slow")!, timeout: .milliseconds(300))
            let error = await #expect(throws: NetworkError.self) { try await transport.send(request) }
            guard case .timeout? = error else { Issue.record("expected timeout, got \(String(describing: error))"); return }
        }
    }

    @Test("cancelling the caller drops the connection", arguments: NetworkTransport.allCases)
    func cancellingTheCallerDropsTheConnection(kind: NetworkTransport) async throws {
        let transport = kind.make()
        try await withScriptedServer { server in
            try await server.script("/hold", [.hold])
            let call = Task { try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/hold")!)) }
            _ = try await server.waitForRequests(path: "/hold", count: 1)
            call.cancel()
            let error = await #expect(throws: NetworkError.self) { try await call.value }
            guard case .cancelled? = error else { Issue.record("expected cancelled, got \(String(describing: error))"); return }
            #expect(try await server.waitForDisconnect(path: "/hold"))
        }
    }

    @Test("an oversized body is refused", arguments: NetworkTransport.allCases)
    func anOversizedBodyIsRefused(kind: NetworkTransport) async throws {
        let transport = kind.make()
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
    @Test("a trickling body still meets the deadline", arguments: NetworkTransport.allCases)
    func aTricklingBodyStillMeetsTheDeadline(kind: NetworkTransport) async throws {
        let transport = kind.make()
        try await withScriptedServer { server in
            try await server.script("/trickle", [.trickled(600, every: 0.1)])     // 60 s in all
            let request = HTTPRequest(url: URL(string: "\(server.baseURL)/trickle")!, timeout: .milliseconds(500))
            let started = ContinuousClock.now
            let error = await #expect(throws: NetworkError.self) { try await transport.send(request) }
            guard case .timeout? = error else { Issue.record("expected timeout, got \(String(describing: error))"); return }
            // Before the body would end (60 s), which an idle timeout would wait for; the margin
            // is wide because under ThreadSanitizer, with the rest of the suite beside it, the
            // timer lagged by over 19 s.
            #expect(ContinuousClock.now - started < .seconds(40))
        }
    }

    @Test("the transport never follows a redirect: the 3xx is the response", arguments: NetworkTransport.allCases)
    func theTransportNeverFollowsARedirect(kind: NetworkTransport) async throws {
        let transport = kind.make()
        try await withScriptedServer { server in
            try await server.script("/old", [.status(302, headers: ["Location": "/new"])])
            try await server.script("/new", [.json(200, #"{"moved":true}"#)])
            let answer = try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/old")!))
            #expect(answer.status == 302)
            #expect(answer.headers["Location"] == "/new")
            #expect(try await server.requests(path: "/new").isEmpty)
        }
    }

    @Test("a refused connection is cannotConnect to the URL's host and port, not the device offline", arguments: NetworkTransport.allCases)
    func aRefusedConnectionIsCannotConnect(kind: NetworkTransport) async throws {
        let transport = kind.make()
        let server = try await ScriptedServer.start()
        let url = URL(string: "\(server.baseURL)/gone")!
        server.stopAndWait()
        let error = await #expect(throws: NetworkError.self) {
            try await transport.send(HTTPRequest(url: url, timeout: .seconds(10)))
        }
        guard case .cannotConnect(let host, let port, .refused, let cause)? = error else {
            Issue.record("expected cannotConnect, got \(String(describing: error))"); return
        }
        #expect(host == "127.0.0.1")
        #expect(port == url.port)
        #expect(cause != nil)
        #expect(error?.category == .transport)
        #expect(error?.userMessage(using: .english).contains("internet") == false)
    }

    @Test("header injection is rejected before anything is sent", arguments: NetworkTransport.allCases)
    func headerInjectionIsRejectedBeforeAnythingIsSent(kind: NetworkTransport) async throws {
        let transport = kind.make()
        try await withScriptedServer { server in
            try await server.script("/echo", [.echo])
            var request = HTTPRequest(url: URL(string: "\(server.baseURL)/echo")!)
            request.headers.add(name: "X-Note", value: "a\r\nX-Injected: 1")
            await #expect(throws: NetworkError.self) { try await transport.send(request) }
            #expect(try await server.requests().isEmpty)
        }
    }
}
