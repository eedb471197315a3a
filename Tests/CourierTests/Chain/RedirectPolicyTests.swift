import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Redirects as Courier follows them, over real HTTP against the scripted server.
@Suite(.timeLimit(.minutes(5))) struct RedirectPolicyTests {
    private struct Order: Codable, Sendable, Equatable { let total: Int }

    @Test("a 307 or 308 delivers the POST body to the new location", arguments: [307, 308])
    func aTemporaryOrPermanentRedirectDeliversThePostBodyToTheNewLocation(status: Int) async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/orders", [.redirect(status, to: "/v2/orders")])
            try await server.script("/v2/orders", [.json(201, #"{"total":42}"#)])
            let api = client(server.baseURL, retryPolicy: .never)
            let created = try await api.send(Endpoint<Order>(path: "v1/orders", method: .post, body: Order(total: 42)))
            #expect(created.value == Order(total: 42))
            let received = try #require(try await server.requests(path: "/v2/orders").first)
            #expect(received.method == "POST")
            #expect(received.bodyText == #"{"total":42}"#)
            await api.shutdown()
        }
    }

    @Test("a request's own redirect policy overrides the client's, both ways")
    func aRequestsOwnRedirectPolicy() async throws {
        try await withScriptedServer { server in
            try await server.script("/old", [.redirect(302, to: "/new")])
            try await server.script("/new", [.json(200, #"{"total":1}"#)])
            let following = client(server.baseURL, retryPolicy: .never)
            let seen = try await following.data(for: Endpoint<Order>(path: "old", options: RequestOptions(redirects: .doNotFollow)))
            #expect(seen.status == 302)
            #expect(seen.headers["Location"] == "/new")
            #expect(try await server.requests(path: "/new").isEmpty)
            await following.shutdown()

            let notFollowing = client(server.baseURL, retryPolicy: .never) { $0.redirects = .doNotFollow }
            let followed = try await notFollowing.send(Endpoint<Order>(path: "old", options: RequestOptions(redirects: .follow)))
            #expect(followed.value == Order(total: 1))
            #expect(try await notFollowing.data(for: Endpoint<Order>(path: "old")).status == 302)
            await notFollowing.shutdown()
        }
    }

    @Test("a 302 after a POST is fetched with a GET and no body")
    func a302AfterAPostIsFetchedWithAGetAndNoBody() async throws {
        try await withScriptedServer { server in
            try await server.script("/orders", [.redirect(302, to: "/orders/9")])
            try await server.script("/orders/9", [.json(200, #"{"total":9}"#)])
            let api = client(server.baseURL, retryPolicy: .never)
            _ = try await api.send(Endpoint<Order>(path: "orders", method: .post, body: Order(total: 9)))
            let received = try #require(try await server.requests(path: "/orders/9").first)
            #expect(received.method == "GET")
            #expect(received.body.isEmpty)
            #expect(received.header("Content-Type") == nil)
            await api.shutdown()
        }
    }

    @Test("a redirect to another port carries no credentials")
    func aRedirectToAnotherPortCarriesNoCredentials() async throws {
        try await withScriptedServer { api in
            try await withScriptedServer { other in
                try await api.script("/me", [.redirect(302, to: "\(other.baseURL)/me")])
                try await api.script("/self", [.redirect(302, to: "/me-here")])
                try await api.script("/me-here", [.json(200, #"{"id":1,"name":"Ada"}"#)])
                try await other.script("/me", [.json(200, #"{"id":2,"name":"Eve"}"#)])
                let client = client(api.baseURL) {
                    $0.auth = AuthInterceptor { "secret-token" }
                    $0.requestInterceptors = [CookieAdder()]
                }
                #expect(try await client.send(Endpoint<User>(path: "me")).value.name == "Eve")
                let leaked = try #require(try await other.requests(path: "/me").first)
                #expect(leaked.header("Authorization") == nil)
                #expect(leaked.header("Cookie") == nil)
                // The same origin keeps them.
                _ = try await client.send(Endpoint<User>(path: "self"))
                let kept = try #require(try await api.requests(path: "/me-here").first)
                #expect(kept.header("Authorization") == "Bearer secret-token")
                #expect(kept.header("Cookie") == "sid=s3cr3t")
                await client.shutdown()
            }
        }
    }

    @Test("credentials are not added to a request for another origin")
    func credentialsAreNotAddedToARequestForAnotherOrigin() async throws {
        try await withScriptedServer { base in
            try await withScriptedServer { other in
                try await other.script("/ping", [.status(204)])
                let api = client(base.baseURL) { $0.auth = AuthInterceptor { "secret-token" } }
                _ = try await api.data(for: HTTPRequest(url: URL(string: "\(other.baseURL)/ping")!))
                #expect(try #require(try await other.requests(path: "/ping").first).header("Authorization") == nil)
                await api.shutdown()
            }
        }
    }

    @Test("more than the allowed hops is tooManyRedirects")
    func moreThanTheAllowedHopsIsTooManyRedirects() async throws {
        try await withScriptedServer { server in
            try await server.script("/loop", [.redirect(302, to: "/loop")])
            let api = client(server.baseURL, retryPolicy: .never) { $0.redirects = .follow(maxHops: 5) }
            let error = await #expect(throws: NetworkError.self) { try await api.data(for: Endpoint<EmptyResponse>(path: "loop")) }
            guard case .tooManyRedirects(5)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(try await server.requests(path: "/loop").count == 6)
            await api.shutdown()
        }
    }

    @Test("when redirects are not followed the 3xx is the raw response")
    func whenRedirectsAreNotFollowedThe3xxIsTheRawResponse() async throws {
        try await withScriptedServer { server in
            try await server.script("/old", [.redirect(301, to: "/new")])
            let api = client(server.baseURL) { $0.redirects = .doNotFollow }
            let raw = try await api.data(for: Endpoint<User>(path: "old"))
            #expect(raw.status == 301)
            #expect(raw.headers["Location"] == "/new")
            let error = await #expect(throws: NetworkError.self) { try await api.send(Endpoint<User>(path: "old")) }
            #expect(error?.statusCode == 301)
            #expect(try await server.requests(path: "/new").isEmpty)
            await api.shutdown()
        }
    }

    @Test("a custom policy decides each hop and every hop is an event")
    func aCustomPolicyDecidesEachHopAndEveryHopIsAnEvent() async throws {
        try await withScriptedServer { server in
            try await server.script("/a", [.redirect(302, to: "/b")])
            try await server.script("/b", [.redirect(302, to: "/c?token=t0p")])
            try await server.script("/c", [.status(204)])
            let api = client(server.baseURL) {
                $0.redirects = .custom { _, next in next.url.path != "/c" }
            }
            let stream = api.events()
            let raw = try await api.data(for: Endpoint<EmptyResponse>(path: "a"))
            #expect(raw.status == 302)
            #expect(raw.headers["Location"] == "/c?token=t0p")
            let redirects = await finalEvents(stream, count: 1).compactMap { event -> String? in
                if case .redirected(_, let status, let url) = event { return "\(status) \(url)" }
                return nil
            }
            #expect(redirects == ["302 \(server.baseURL)/b"])
            #expect(try await server.requests(path: "/c").isEmpty)
            await api.shutdown()
        }
    }
}

/// Adds a session cookie, as an app's cookie interceptor would.
private struct CookieAdder: RequestInterceptor {
    func intercept(_ request: HTTPRequest, context: RequestContext) -> RequestInterception {
        var request = request
        request.headers["Cookie"] = "sid=s3cr3t"
        return .proceed(request)
    }
}
