import CourierTesting
import Foundation
import Testing

@testable import Courier

// MARK: - Helpers

/// An underlying error with a known `String(reflecting:)`.
private struct Cause: Error, CustomDebugStringConvertible {
    let name: String
    var debugDescription: String { "Cause<\(name)>" }
}

private func mapped(_ status: Int, body: String = "") -> NetworkError? {
    NetworkError(response: HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8)))
}

/// The status, server message and code of a `.serverError`, or nil (recording an issue) for
/// anything else.
private func serverError(
    _ error: NetworkError?, sourceLocation: SourceLocation = #_sourceLocation
) -> (status: Int, message: String?, code: String?)? {
    guard let error, case .serverError(let response) = error else {
        Issue.record("expected .serverError, got \(String(describing: error))", sourceLocation: sourceLocation)
        return nil
    }
    return (response.status, error.serverMessage, error.serverCode)
}

/// A response with `status` and a UTF-8 body.
private func response(_ status: Int, _ body: String = "") -> HTTPResponse {
    HTTPResponse(status: status, body: Data(body.utf8))
}

/// One value of every case.
private let everyCase: [NetworkError] = [
    .invalidURL("no host"),
    .invalidRequest("bad header"),
    .noConnection(underlying: Cause(name: "offline")),
    .noConnection(underlying: nil),
    .cannotConnect(host: "db.example.com", port: 5432, reason: .refused, underlying: Cause(name: "refused")),
    .cannotConnect(host: "db.example.com", port: 443, reason: .hostNotFound, underlying: nil),
    .connectionLost(host: "db.example.com", port: 443, underlying: Cause(name: "reset")),
    .timeout(.attempt, underlying: Cause(name: "slow")),
    .timeout(.request, underlying: nil),
    .invalidResponse("bad Location"),
    .unauthorized(nil),
    .unauthorized(response(401)),
    .forbidden(response(403)),
    .notFound(response(404)),
    .conflict(response(409, "{}")),
    .notModified(response(304)),
    .serverError(response(500, #"{"message":"db down"}"#)),
    .serverError(response(400)),
    .serverError(response(302)),
    .tooManyRedirects(limit: 20),
    .decodingError(underlying: Cause(name: "decode"), bodyPrefix: "<html>"),
    .encodingError(underlying: Cause(name: "encode")),
    .securityError("refused plain http request to example.com"),
    .invalidToken("the JWT payload has no numeric exp claim"),
    .notCached,
    .queueFull(limit: 1000),
    .storageFailed("disk full"),
    .responseTooLarge(limit: 1024),
    .cancelled,
    .overloaded,
    .componentUnavailable("Cache"),
    .componentRestarted("TokenStore"),
    .unknown(underlying: Cause(name: "weird")),
    .unknown(underlying: nil),
]

// MARK: - Tests

@Suite struct NetworkErrorTests {
    // MARK: NetworkError(response:)

    @Test("2xx responses are not errors", arguments: [200, 201, 202, 204, 206, 299])
    func successIsNil(status: Int) {
        #expect(mapped(status, body: #"{"message":"fine"}"#) == nil)
    }

    @Test("401, 403 and 404 map to their own cases")
    func namedStatuses() {
        guard case .unauthorized? = mapped(401, body: #"{"message":"expired"}"#) else {
            Issue.record("401 should be .unauthorized")
            return
        }
        guard case .forbidden? = mapped(403) else {
            Issue.record("403 should be .forbidden")
            return
        }
        guard case .notFound? = mapped(404, body: "<html>not here</html>") else {
            Issue.record("404 should be .notFound")
            return
        }
    }

    @Test("409 carries the exact body bytes")
    func conflictCarriesBody() {
        let bytes = Data([0x7B, 0x22, 0x76, 0x22, 0x3A, 0x33, 0x7D, 0x00, 0xFF, 0x0A]) // {"v":3} NUL 0xFF LF
        let error = NetworkError(response: HTTPResponse(status: 409, body: bytes))
        guard case .conflict(let response)? = error else {
            Issue.record("expected .conflict, got \(String(describing: error))")
            return
        }
        #expect(response.body == bytes)
        #expect(error?.statusCode == 409)

        guard case .conflict(let empty)? = NetworkError(response: HTTPResponse(status: 409)) else {
            Issue.record("expected .conflict for an empty 409")
            return
        }
        #expect(empty.body.isEmpty)
    }

    @Test("other statuses map to serverError with the status", arguments: [400, 402, 405, 408, 418, 422, 429, 500, 502, 503, 504, 599])
    func otherStatusesAreServerErrors(status: Int) {
        let error = serverError(mapped(status, body: #"{"message":"db down","code":"E42"}"#))
        #expect(error?.status == status)
        #expect(error?.message == "db down")
        #expect(error?.code == "E42")
    }

    @Test("server message: string code")
    func messageWithStringCode() {
        #expect(serverError(mapped(500, body: #"{"message":"db down","code":"E42"}"#))?.code == "E42")
        #expect(serverError(mapped(503, body: #"{"code":"E42","message":"db down","extra":[1,2]}"#))?.message == "db down")
    }

    @Test("server message: numeric code")
    func messageWithNumericCode() {
        #expect(serverError(mapped(500, body: #"{"message":"db down","code":42}"#))?.code == "42")
        #expect(serverError(mapped(418, body: #"{"message":"teapot","code":-7}"#))?.code == "-7")
    }

    @Test("server message: no code, a null code or an unusable code gives the message alone")
    func messageWithoutCode() {
        for body in [#"{"message":"db down"}"#, #"{"message":"db down","code":null}"#, #"{"message":"db down","code":true}"#,
                     #"{"message":"db down","code":{"x":1}}"#] {
            #expect(serverError(mapped(500, body: body))?.message == "db down")
            #expect(serverError(mapped(500, body: body))?.code == nil)
        }
    }

    @Test(
        "no server message without a JSON error body",
        arguments: [
            "", "<html><body>Bad Gateway</body></html>", "db down", #"{"error":"db down"}"#, #"{"code":"E42"}"#,
            #"{"message":null}"#, #"{"message":42}"#, #"["message","db down"]"#, #"{"message":"db down""#, "{",
        ])
    func noMessage(body: String) {
        let error = serverError(mapped(502, body: body))
        #expect(error?.status == 502)
        #expect(error?.message == nil)
    }

    @Test("a server message survives non-ASCII text")
    func unicodeMessage() {
        #expect(serverError(mapped(500, body: #"{"message":"base de données indisponible","code":"É1"}"#))?.message
            == "base de données indisponible")
    }

    // MARK: isRetryable

    @Test("isRetryable for every case")
    func isRetryable() {
        #expect(NetworkError.noConnection(underlying: nil).isRetryable)
        #expect(NetworkError.connectionLost(host: "h", port: 1, underlying: nil).isRetryable)
        for reason in [NetworkError.ConnectFailure.refused, .unreachable] {
            #expect(NetworkError.cannotConnect(host: "h", port: 1, reason: reason, underlying: nil).isRetryable)
        }
        for reason in [NetworkError.ConnectFailure.hostNotFound, .tlsHandshake] {
            #expect(!NetworkError.cannotConnect(host: "h", port: 1, reason: reason, underlying: nil).isRetryable)
        }
        #expect(NetworkError.timeout(.attempt, underlying: Cause(name: "t")).isRetryable)
        #expect(NetworkError.overloaded.isRetryable)
        #expect(NetworkError.componentRestarted("Cache").isRetryable)
        for status in [408, 429, 500, 502, 503, 504, 599] {
            #expect(NetworkError.serverError(response(status)).isRetryable, "status \(status)")
        }
        for status in [400, 402, 405, 410, 418, 422] {
            #expect(!NetworkError.serverError(response(status)).isRetryable, "status \(status)")
        }
        let permanent: [NetworkError] = [
            .invalidURL("x"), .invalidRequest("x"), .invalidResponse("x"), .unauthorized(nil), .forbidden(response(403)),
            .notFound(response(404)), .conflict(response(409)), .notModified(response(304)), .tooManyRedirects(limit: 1),
            .decodingError(underlying: Cause(name: "d"), bodyPrefix: ""), .encodingError(underlying: Cause(name: "e")),
            .securityError("x"), .invalidToken("x"), .responseTooLarge(limit: 1), .notCached, .queueFull(limit: 1), .storageFailed("x"), .cancelled, .componentUnavailable("x"),
            .unknown(underlying: nil),
        ]
        for error in permanent {
            #expect(!error.isRetryable, "\(error) should not be retryable")
        }
    }

    @Test("mapped responses: retryable exactly for 408, 429 and 5xx")
    func mappedRetryability() {
        #expect(mapped(503)?.isRetryable == true)
        #expect(mapped(429)?.isRetryable == true)
        #expect(mapped(408)?.isRetryable == true)
        #expect(mapped(500)?.isRetryable == true)
        #expect(mapped(400)?.isRetryable == false)
        #expect(mapped(401)?.isRetryable == false)
        #expect(mapped(404)?.isRetryable == false)
        #expect(mapped(409)?.isRetryable == false)
    }

    // MARK: statusCode

    @Test("statusCode for every case")
    func statusCode() {
        #expect(NetworkError.unauthorized(response(401)).statusCode == 401)
        #expect(NetworkError.unauthorized(nil).statusCode == nil)
        #expect(NetworkError.forbidden(response(403)).statusCode == 403)
        #expect(NetworkError.notFound(response(404)).statusCode == 404)
        #expect(NetworkError.conflict(response(409, "x")).statusCode == 409)
        #expect(NetworkError.notModified(response(304)).statusCode == 304)
        #expect(NetworkError.serverError(response(503)).statusCode == 503)
        let statusless = everyCase.filter { $0.response == nil }
        #expect(statusless.count == 26)
        for error in statusless {
            #expect(error.statusCode == nil, "\(error)")
        }
    }

    @Test("a mapped response's statusCode is the response's status", arguments: [401, 403, 404, 409, 400, 418, 429, 500, 503])
    func mappedStatusCode(status: Int) {
        #expect(mapped(status)?.statusCode == status)
    }

    // MARK: userMessage

    @Test("userMessage is a non-empty sentence for every case and leaks no internals")
    func userMessage() {
        for error in everyCase {
            let message = error.userMessage
            #expect(!message.isEmpty, "\(error)")
            #expect(message.first?.isUppercase == true, "\(error): \(message)")
            #expect(message.hasSuffix("."), "\(error): \(message)")
            for detail in ["Cause<", "db down", "example.com", "bad header", "no host", "<html>", "Cache", "TokenStore"] {
                #expect(!message.contains(detail), "\(error): \(message)")
            }
        }
        let english = UserMessages.english
        #expect(NetworkError.unauthorized(nil).userMessage(using: english) == "Your session has expired. Please sign in again.")
        #expect(NetworkError.serverError(response(503, #"{"message":"db down"}"#)).userMessage(using: english)
            == "The server had a problem (503). Please try again later.")
        #expect(NetworkError.noConnection(underlying: nil).userMessage(using: english)
            == "No internet connection. Check your connection and try again.")
        #expect(NetworkError.cannotConnect(host: "127.0.0.1", port: 8899, reason: .refused, underlying: nil).userMessage(using: english)
            == "The server cannot be reached right now. Please try again later.")
        #expect(NetworkError.connectionLost(host: "127.0.0.1", port: 8899, underlying: nil).userMessage(using: english)
            == "The connection to the server was lost. Please try again.")
    }

    // MARK: description and underlyingError

    @Test("description includes the underlying cause")
    func descriptionIncludesCause() {
        #expect(NetworkError.noConnection(underlying: Cause(name: "offline")).description
            == "noConnection: the device is offline (cause: Cause<offline>)")
        #expect(NetworkError.timeout(.attempt, underlying: Cause(name: "slow")).description == "timeout (attempt timeout) (cause: Cause<slow>)")
        #expect(NetworkError.unknown(underlying: Cause(name: "weird")).description == "unknown (cause: Cause<weird>)")
        #expect(NetworkError.encodingError(underlying: Cause(name: "encode")).description == "encodingError (cause: Cause<encode>)")
        #expect(NetworkError.decodingError(underlying: Cause(name: "decode"), bodyPrefix: #"{"id":"#).description
            == #"decodingError, body starts with: {"id": (cause: Cause<decode>)"#)
        let urlError = URLError(.notConnectedToInternet)
        let described = NetworkError.noConnection(underlying: urlError).description
        #expect(described == "noConnection: the device is offline (cause: \(String(reflecting: urlError)))")
        #expect(described.contains("URLError") || described.contains("NSURLErrorDomain") || described.contains("-1009"))
    }

    @Test("description without a cause, and for the causeless cases")
    func descriptionWithoutCause() {
        #expect(NetworkError.noConnection(underlying: nil).description == "noConnection: the device is offline")
        #expect(NetworkError.timeout(.request, underlying: nil).description == "timeout (request deadline)")
        #expect(NetworkError.unknown(underlying: nil).description == "unknown")
        #expect(NetworkError.invalidURL("no host").description == "invalidURL: no host")
        #expect(NetworkError.invalidRequest("bad header").description == "invalidRequest: bad header")
        #expect(NetworkError.unauthorized(response(401)).description == "unauthorized (401)")
        #expect(NetworkError.unauthorized(nil).description == "unauthorized (no credentials to send)")
        #expect(NetworkError.forbidden(response(403)).description == "forbidden (403)")
        #expect(NetworkError.notFound(response(404)).description == "notFound (404)")
        #expect(NetworkError.conflict(HTTPResponse(status: 409, body: Data(count: 12))).description == "conflict (409), 12-byte body")
        #expect(NetworkError.serverError(response(500, #"{"message":"db down","code":"E42"}"#)).description
            == "serverError(500): db down [code E42]")
        #expect(NetworkError.serverError(response(502)).description == "serverError(502)")
        #expect(NetworkError.notModified(response(304)).description == "notModified (304)")
        #expect(NetworkError.tooManyRedirects(limit: 20).description == "tooManyRedirects (more than 20)")
        #expect(NetworkError.securityError("refused").description == "securityError: refused")
        #expect(NetworkError.responseTooLarge(limit: 1024).description == "responseTooLarge (limit 1024 bytes)")
        #expect(NetworkError.cancelled.description == "cancelled")
        #expect(NetworkError.overloaded.description == "overloaded")
        #expect(NetworkError.componentUnavailable("Cache").description
            == "componentUnavailable(Cache): stopped (the client shut down, or its supervisor gave up restarting it)")
        #expect(NetworkError.componentUnavailable("session").description
            == "componentUnavailable(session): the client was created without APIClient.Configuration.session")
        #expect(NetworkError.componentRestarted("Cache").description == "componentRestarted(Cache)")
        #expect("\(NetworkError.forbidden(response(403)))" == "forbidden (403)")
    }

    @Test("underlyingError is the wrapped cause, for exactly the cases that have one")
    func underlyingError() {
        for error in everyCase {
            let cause = error.underlyingError as? Cause
            switch error {
            case .noConnection(let wrapped?), .timeout(_, let wrapped?), .unknown(let wrapped?), .cannotConnect(_, _, _, let wrapped?),
                 .connectionLost(_, _, let wrapped?):
                #expect(cause?.name == (wrapped as? Cause)?.name, "\(error)")
                #expect(cause != nil, "\(error)")
            case .decodingError(let wrapped, _), .encodingError(let wrapped):
                #expect(cause?.name == (wrapped as? Cause)?.name, "\(error)")
                #expect(cause != nil, "\(error)")
            default:
                #expect(error.underlyingError == nil, "\(error)")
            }
        }
    }

    @Test("ServerErrorBody decodes directly too")
    func serverErrorBodyDecoding() throws {
        let decoded = try JSONDecoder().decode(ServerErrorBody.self, from: Data(#"{"message":"db down","code":7}"#.utf8))
        #expect(decoded.message == "db down")
        #expect(decoded.code == "7")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ServerErrorBody.self, from: Data(#"{"code":"E1"}"#.utf8))
        }
        #expect(ServerErrorBody(Data(#"{"message":"m","code":"c"}"#.utf8)) == ServerErrorBody(Data(#" {"code":"c","message":"m"}"#.utf8)))
        #expect(ServerErrorBody(Data()) == nil)
    }

    @Test("error bodies with leading whitespace are read")
    func errorBodiesWithLeadingWhitespaceAreRead() {
        let error = NetworkError(response: HTTPResponse(status: 500, body: Data(" \n{\"message\":\"db down\"}".utf8)))
        #expect(error?.serverMessage == "db down")
        #expect(error?.statusCode == 500)
    }

    @Test("304 maps to notModified with its response")
    func notModifiedKeepsItsResponse() {
        let error = NetworkError(response: HTTPResponse(status: 304, headers: ["ETag": "\"v2\""]))
        guard case .notModified(let response)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(response.headers["ETag"] == "\"v2\"")
        #expect(error?.isRetryable == false)
    }

    @Test("an error keeps its response's headers and at most the kept body bytes")
    func anErrorKeepsItsResponsesHeadersAndAtMostTheKeptBodyBytes() {
        let big = HTTPResponse(status: 503, headers: ["Retry-After": "5"], body: Data(count: NetworkError.keptBodyBytes + 10))
        let error = NetworkError(response: big)
        #expect(error?.response?.headers["Retry-After"] == "5")
        #expect(error?.response?.body.count == NetworkError.keptBodyBytes)
    }

    @Test("user messages come in English and Spanish, and an app can replace them")
    func userMessagesComeInEnglishAndSpanishAndAnAppCanReplaceThem() {
        let error = NetworkError.serverError(response(502))
        #expect(error.userMessage(using: .spanish) == "El servidor tuvo un problema (502). Inténtalo más tarde.")
        #expect(NetworkError.noConnection(underlying: nil).userMessage(using: .spanish)
            == "No hay conexión a internet. Comprueba tu conexión e inténtalo de nuevo.")
        var custom = UserMessages.english
        custom.serverProblem = "Upstream {status} is down."
        #expect(error.userMessage(using: custom) == "Upstream 502 is down.")
        for error in everyCase {
            #expect(!error.userMessage(using: .spanish).isEmpty)
        }
        #expect([UserMessages.english, .spanish].contains(UserMessages.preferred))
    }

    // MARK: category

    @Test("every case has its category: transport, an HTTP status, GraphQL, client, component…")
    func categories() {
        let graphQLFailure = GraphQLFailure(errors: [], data: nil, response: response(200))
        let expected: [(NetworkError, NetworkError.Category)] = [
            (.noConnection(underlying: nil), .offline),
            (.cannotConnect(host: "h", port: 1, reason: .refused, underlying: nil), .transport),
            (.cannotConnect(host: "h", port: 1, reason: .tlsHandshake, underlying: nil), .transport),
            (.connectionLost(host: "h", port: 1, underlying: nil), .transport),
            (.timeout(.attempt, underlying: nil), .transport),
            (.timeout(.request, underlying: nil), .transport),
            (.malformedResponse("truncated body", underlying: nil), .transport),
            (.invalidResponse("bad Location"), .transport),
            (.unauthorized(response(401)), .http(status: 401)),
            (.forbidden(response(403)), .http(status: 403)),
            (.notFound(response(404)), .http(status: 404)),
            (.conflict(response(409)), .http(status: 409)),
            (.notModified(response(304)), .http(status: 304)),
            (.serverError(response(503)), .http(status: 503)),
            (.serverError(response(429)), .http(status: 429)),
            (.serverError(response(302)), .http(status: 302)),
            (.graphQL(graphQLFailure), .graphQL),
            (.invalidURL("no host"), .client),
            (.invalidRequest("bad header"), .client),
            (.unauthorized(nil), .client),
            (.invalidToken("no exp"), .client),
            (.tooManyRedirects(limit: 20), .client),
            (.decodingError(underlying: Cause(name: "decode"), bodyPrefix: ""), .client),
            (.encodingError(underlying: Cause(name: "encode")), .client),
            (.securityError("plain http"), .client),
            (.responseTooLarge(limit: 1), .client),
            (.notCached, .client),
            (.overloaded, .component),
            (.componentUnavailable("session"), .component),
            (.componentUnavailable("Cache"), .component),
            (.componentRestarted("Cache"), .component),
            (.queueFull(limit: 1), .component),
            (.storageFailed("disk full"), .component),
            (.cancelled, .cancelled),
            (.unknown(underlying: nil), .unknown),
        ]
        for (error, category) in expected {
            #expect(error.category == category, "\(error)")
        }
    }

    @Test("an HTTP category's status is the error's statusCode, and only errors from a response have one")
    func categoryMatchesStatusCode() {
        for error in everyCase {
            if case .http(let status) = error.category {
                #expect(error.statusCode == status)
            } else if case .graphQL = error.category {
                continue
            } else {
                #expect(error.statusCode == nil, "\(error)")
            }
        }
    }

    @Test("transport failures are the retryable ones that got no answer; client failures never retry")
    func categoryAndRetry() {
        for error in everyCase {
            switch error.category {
            case .transport where error.isRetryable == false:
                if case .invalidResponse = error { continue }   // the server answered, wrongly: the same again
                if case .cannotConnect(_, _, let reason, _) = error, !reason.isTransient { continue }   // a name or TLS: the same again
                Issue.record("\(error) is a transport failure and not retryable")
            case .client, .cancelled:
                #expect(!error.isRetryable, "\(error)")
            default:
                break
            }
        }
    }

    // MARK: descriptions that name the request, redacted

    @Test("an error status's description names the request as sent, its query secrets redacted, with the server's message")
    func descriptionNamesTheRequest() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/tea", method: "POST", [.json(418, #"{"message":"I'm a teapot","code":"teapot"}"#)])
            let api = client(server.baseURL, retryPolicy: .never)
            let endpoint = Endpoint<EmptyResponse>(
                path: "v1/tea", method: .post,
                query: [URLQueryItem(name: "access_token", value: "s3cret"), URLQueryItem(name: "cup", value: "2")])
            let error = await #expect(throws: NetworkError.self) { try await api.send(endpoint) }
            #expect(error?.description
                == "serverError(418) POST \(server.baseURL)/v1/tea?access_token=%3Credacted%3E&cup=2: I'm a teapot [code teapot]")
            #expect(error?.description.contains("s3cret") == false)
            #expect("\(error.map(String.init(describing:)) ?? "")".contains("POST"))
            await api.shutdown()
        }
    }

    @Test("connection errors name host and port and why; a cause quoting the URL has its secrets redacted")
    func connectionDescriptions() {
        #expect(NetworkError.cannotConnect(host: "127.0.0.1", port: 8899, reason: .refused, underlying: nil).description
            == "cannotConnect 127.0.0.1:8899: connection refused")
        #expect(NetworkError.cannotConnect(host: "::1", port: 443, reason: .tlsHandshake, underlying: nil).description
            == "cannotConnect [::1]:443: TLS handshake failed")
        #expect(NetworkError.cannotConnect(host: "api.invalid", port: 80, reason: .hostNotFound, underlying: Cause(name: "dns")).description
            == "cannotConnect api.invalid:80: host not found (cause: Cause<dns>)")
        #expect(NetworkError.connectionLost(host: "api.example.com", port: 443, underlying: nil).description
            == "connectionLost api.example.com:443: the connection broke before any response")
        let secretURL = URL(string: "https://api.example.com/x?token=s3cret&page=2")!
        let urlError = URLError(.cannotConnectToHost, userInfo: [
            NSURLErrorFailingURLErrorKey: secretURL, "NSErrorFailingURLStringKey": secretURL.absoluteString,
        ])
        let described = NetworkError(urlError).description
        #expect(described.hasPrefix("cannotConnect api.example.com:443: connection refused (cause: "))
        #expect(!described.contains("s3cret"), "\(described)")
        #expect(described.contains("page=2"))
    }

    @Test("a decoding error's body prefix has its secret fields redacted")
    func decodingPrefixRedacted() {
        let error = NetworkError.decodingError(underlying: Cause(name: "d"), bodyPrefix: #"{"access_token":"eyJhbGciOi","expires_in":36"#)
        #expect(!error.description.contains("eyJhbGciOi"), "\(error.description)")
        #expect(error.description.hasPrefix("decodingError, body starts with: "))
    }

    // MARK: one-line description

    @Test("the description is one line, whatever the body prefix, server message or cause holds")
    func oneLineDescription() {
        let errors: [NetworkError] = [
            .decodingError(underlying: Cause(name: "decode"), bodyPrefix: "<html>\n<body>\r\nBad"),
            .serverError(response(500, #"{"message":"db\ndown"}"#)),
            .unknown(underlying: Cause(name: "two\nlines")),
        ]
        for error in errors {
            let lines = error.description.split(whereSeparator: \.isNewline)
            #expect(lines.count == 1, "\(error.description)")
        }
        #expect(NetworkError.decodingError(underlying: Cause(name: "d"), bodyPrefix: "<html>\n<body>").description
            == "decodingError, body starts with: <html> <body> (cause: Cause<d>)")
    }
}
