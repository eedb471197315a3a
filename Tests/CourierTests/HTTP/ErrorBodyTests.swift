import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A custom error shape: `{"error": {"reason": …, "hint": …}}`; the hint is for users.
private struct ShopError: Decodable, Sendable, Equatable, ServerErrorMessage {
    struct Detail: Decodable, Sendable, Equatable {
        let reason: String
        let hint: String?
    }
    let error: Detail

    var message: String? { error.reason }
    var userMessage: String? { error.hint }
}

/// A type that counts how often it was decoded: the success path must not pay for error bodies.
private struct CountedErrorBody: Decodable, Sendable {
    static let decodings = Locked(0)
    let message: String

    init(from decoder: any Decoder) throws {
        Self.decodings.withLock { $0 += 1 }
        message = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .message)
    }

    private enum CodingKeys: String, CodingKey { case message }
}

private let problemBody = #"""
{"type":"https://example.com/probs/out-of-credit","title":"You do not have enough credit.","status":403,"detail":"Your current balance is 30, but that costs 50.","instance":"/account/12345/msgs/abc","balance":30,"accounts":["/account/12345","/account/67890"]}
"""#

/// A server's error body as a type (issue 34, item 7), against the scripted server.
@Suite struct ErrorBodyTests {
    @Test("an RFC 9457 problem document decodes into ProblemDetails on the client's setting; messages come from it")
    func problemDetails() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/orders", method: "POST", [.json(403, problemBody, headers: ["Content-Type": "application/problem+json"])])
            let api = client(server.baseURL, retryPolicy: .never) { $0.errorBody = ProblemDetails.self }
            let error = await #expect(throws: NetworkError.self) {
                try await api.send(Endpoint<EmptyResponse>(path: "v1/orders", method: .post, body: ["sku": "a1"]))
            }
            guard case .forbidden? = error, let error else { Issue.record("got \(String(describing: error))"); return }
            let problem = try #require(error.errorBody as? ProblemDetails)
            #expect(problem == ProblemDetails(
                type: "https://example.com/probs/out-of-credit", title: "You do not have enough credit.", status: 403,
                detail: "Your current balance is 30, but that costs 50.", instance: "/account/12345/msgs/abc",
                extensions: ["balance": .number(30), "accounts": .array([.string("/account/12345"), .string("/account/67890")])]))
            #expect(error.decodedBody(as: ProblemDetails.self) == problem)
            #expect(error.serverMessage == "Your current balance is 30, but that costs 50.")
            #expect(error.serverCode == "https://example.com/probs/out-of-credit")
            #expect(error.userMessage(using: .english) == "Your current balance is 30, but that costs 50.")
            #expect(error.statusCode == 403)
            #expect(error.description.hasPrefix("forbidden (403) POST \(server.baseURL)/v1/orders: Your current balance is 30"))
            await api.shutdown()
        }
    }

    @Test("an endpoint's own error type replaces the client's; its hint is the user message")
    func perEndpointType() async throws {
        try await withScriptedServer { server in
            let body = #"{"error":{"reason":"sku a1 is sold out","hint":"Pick another size."}}"#
            try await server.script("/v1/cart", method: "POST", [.json(422, body)])
            let api = client(server.baseURL, retryPolicy: .never) { $0.errorBody = ProblemDetails.self }
            let endpoint = Endpoint<EmptyResponse>(
                path: "v1/cart", method: .post, body: ["sku": "a1"], options: RequestOptions(errorBody: ShopError.self))
            let error = await #expect(throws: NetworkError.self) { try await api.send(endpoint) }
            let shop = try #require(error?.errorBody as? ShopError)
            #expect(shop.error == ShopError.Detail(reason: "sku a1 is sold out", hint: "Pick another size."))
            #expect(error?.serverMessage == "sku a1 is sold out")
            #expect(error?.serverCode == nil)
            #expect(error?.userMessage == "Pick another size.")
            #expect(error?.decodedBody(as: ProblemDetails.self) != nil)   // any JSON object reads as a problem, on demand
            await api.shutdown()
        }
    }

    @Test("an error body that does not decode keeps the plain error: same case, status, retryability and sentence")
    func undecodableKeepsThePlainError() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/cart", [
                .text(502, "<html><body>Bad Gateway</body></html>", headers: ["Content-Type": "text/html"]),
                .json(400, #"{"message":"bad sku","code":"E7"}"#),
            ])
            let api = client(server.baseURL, retryPolicy: .never) { $0.errorBody = ShopError.self }
            let gateway = await #expect(throws: NetworkError.self) { try await api.send(Endpoint<EmptyResponse>(path: "v1/cart")) }
            guard case .serverError(let response)? = gateway else { Issue.record("got \(String(describing: gateway))"); return }
            #expect(response.status == 502)
            #expect(gateway?.errorBody == nil)
            #expect(gateway?.decodedBody(as: ShopError.self) == nil)
            #expect(gateway?.serverMessage == nil)
            #expect(gateway?.isRetryable == true)
            #expect(gateway?.userMessage(using: .english) == "The server had a problem (502). Please try again later.")
            // JSON of another shape: not a ShopError, but the `{message, code}` shape is still read.
            let refused = await #expect(throws: NetworkError.self) { try await api.send(Endpoint<EmptyResponse>(path: "v1/cart")) }
            #expect(refused?.errorBody == nil)
            #expect(refused?.serverMessage == "bad sku")
            #expect(refused?.serverCode == "E7")
            #expect(refused?.userMessage(using: .english) == "The request was refused (400).")
            await api.shutdown()
        }
    }

    @Test("error bodies are decoded only for an error status: a success never decodes one")
    func onlyOnFailure() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/items", [.json(200, #"{"message":"fine"}"#), .json(500, #"{"message":"db down"}"#)])
            let api = client(server.baseURL, retryPolicy: .never) { $0.errorBody = CountedErrorBody.self }
            let before = CountedErrorBody.decodings.withLock { $0 }
            _ = try await api.data(for: Endpoint<EmptyResponse>(path: "v1/items"))
            #expect(CountedErrorBody.decodings.withLock { $0 } == before)
            let error = await #expect(throws: NetworkError.self) { try await api.data(for: Endpoint<EmptyResponse>(path: "v1/items")) }
            #expect((error?.errorBody as? CountedErrorBody)?.message == "db down")
            #expect(CountedErrorBody.decodings.withLock { $0 } == before + 1)
            await api.shutdown()
        }
    }

    @Test("without a configured type, decodedBody(as:) decodes on demand; an empty body or no response gives nil")
    func onDemand() {
        let error = NetworkError(response: HTTPResponse(status: 409, body: Data(#"{"error":{"reason":"taken","hint":null}}"#.utf8)))
        #expect(error?.errorBody == nil)
        #expect(error?.decodedBody(as: ShopError.self)?.error.reason == "taken")
        #expect(NetworkError(response: HTTPResponse(status: 409))?.decodedBody(as: ShopError.self) == nil)
        #expect(NetworkError.timeout(.attempt, underlying: nil).decodedBody(as: ShopError.self) == nil)
    }

    @Test("ProblemDetails ignores a standard member of the wrong type and treats about:blank as no code")
    func problemDetailsLeniency() throws {
        let problem = try JSONDecoder().decode(
            ProblemDetails.self, from: Data(#"{"type":"about:blank","title":"Not Found","status":"404","detail":7,"trace":"x1"}"#.utf8))
        #expect(problem.status == nil)
        #expect(problem.detail == nil)
        #expect(problem.message == "Not Found")
        #expect(problem.code == nil)
        #expect(problem.extensions == ["trace": .string("x1")])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ProblemDetails.self, from: Data("[1]".utf8)) }
    }
}
