import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Tests of the scripted-server harness itself, driven with plain URLSession.
@Suite struct ScriptedServerTests {

    @Test("scripted responses are served in order and the last one repeats")
    func scriptedSequence() async throws {
        try await withScriptedServer { server in
            try await server.script("/retry", [.status(503), .status(503), .json(200, #"{"ok":true}"#)])
            let client = Client()

            var statuses: [Int] = []
            for _ in 0..<4 {
                statuses.append(try await client.get(server.baseURL.appendingPathComponent("retry")).status)
            }
            #expect(statuses == [503, 503, 200, 200])

            let (body, response) = try await client.send(URLRequest(url: server.baseURL.appendingPathComponent("retry")))
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
            #expect(String(decoding: body, as: UTF8.self) == #"{"ok":true}"#)
        }
    }

    @Test("re-scripting a path replaces its script; method-specific scripts win")
    func rescriptingAndMethods() async throws {
        try await withScriptedServer { server in
            let client = Client()
            let url = server.baseURL.appendingPathComponent("thing")

            try await server.script("/thing", [.status(500)])
            #expect(try await client.get(url).status == 500)
            try await server.script("/thing", [.status(201)])
            #expect(try await client.get(url).status == 201)

            try await server.script("/thing", method: "DELETE", [.status(204)])
            var delete = URLRequest(url: url)
            delete.httpMethod = "DELETE"
            #expect(try await client.send(delete).1.statusCode == 204)
            #expect(try await client.get(url).status == 201)
        }
    }

    @Test("requests are recorded with method, path with query, headers and body")
    func requestsAreRecorded() async throws {
        try await withScriptedServer { server in
            try await server.script("/echo", [.echo])
            let client = Client()

            var request = URLRequest(url: URL(string: "\(server.baseURL.absoluteString)/echo?b=2&a=1")!)
            request.httpMethod = "PUT"
            request.setValue("yes", forHTTPHeaderField: "X-Courier-Test")
            request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data("hello, server".utf8)
            let (echoData, response) = try await client.send(request)
            #expect(response.statusCode == 200)

            // The echo body describes the request as well.
            let echo = try JSONSerialization.jsonObject(with: echoData) as? [String: Any]
            #expect(echo?["method"] as? String == "PUT")
            #expect(echo?["path"] as? String == "/echo")
            #expect(echo?["query"] as? String == "b=2&a=1")
            #expect(echo?["body"] as? String == "hello, server")

            let recorded = try await server.requests(path: "/echo")
            try #require(recorded.count == 1)
            let seen = recorded[0]
            #expect(seen.method == "PUT")
            #expect(seen.path == "/echo?b=2&a=1")
            #expect(seen.header("x-courier-test") == "yes")
            #expect(seen.header("CONTENT-TYPE") == "text/plain")
            #expect(seen.bodyText == "hello, server")

            // Control requests are never recorded; unfiltered listing sees the same single request.
            #expect(try await server.requests().map(\.path) == ["/echo?b=2&a=1"])
        }
    }

    @Test("streamed (chunked) request bodies are de-chunked")
    func streamedBody() async throws {
        try await withScriptedServer { server in
            try await server.script("/upload", [.status(200)])
            let client = Client()

            let payload = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0) })
            var request = URLRequest(url: server.baseURL.appendingPathComponent("upload"))
            request.httpMethod = "POST"
            request.httpBodyStream = InputStream(data: payload)
            #expect(try await client.send(request).1.statusCode == 200)

            let seen = try #require(try await server.requests(path: "/upload").first)
            #expect(seen.body == payload)
        }
    }

    @Test("waitForRequests returns once N requests arrived, and times out otherwise")
    func waitForRequests() async throws {
        try await withScriptedServer { server in
            try await server.script("/slow", [.status(200)])
            let client = Client()
            let url = server.baseURL.appendingPathComponent("slow")

            // Requests to /slow/<n> are not counted: waiting matches the path exactly.
            let senders = Task {
                for index in 0..<3 {
                    try await Task.sleep(for: .milliseconds(100))
                    _ = try await client.get(url.appendingPathComponent("\(index)"))
                    _ = try await client.get(url)
                }
            }
            let seen = try await server.waitForRequests(path: "/slow", count: 3, timeout: 120)
            #expect(seen.count >= 3)
            #expect(seen.allSatisfy { $0.path == "/slow" })
            try await senders.value

            await #expect(throws: ScriptedServerError.self) {
                _ = try await server.waitForRequests(path: "/slow", count: 10, timeout: 0.3)
            }
        }
    }

    @Test("a held request reports its client's disconnect after cancellation")
    func holdAndCancel() async throws {
        try await withScriptedServer { server in
            try await server.script("/hold", [.hold])
            let client = Client()

            // A completion-handler task, so the test controls exactly when cancel() happens.
            let (outcome, report) = AsyncStream.makeStream(of: URLError.Code?.self)
            let task = client.session.dataTask(with: server.baseURL.appendingPathComponent("hold")) { _, _, error in
                report.yield((error as? URLError)?.code)
                report.finish()
            }
            task.resume()

            _ = try await server.waitForRequests(path: "/hold", count: 1)
            #expect(try await server.waitForDisconnect(path: "/hold", timeout: 0.2) == false)
            task.cancel()
            #expect(try await server.waitForDisconnect(path: "/hold", timeout: 30))
            var outcomes = outcome.makeAsyncIterator()
            #expect(await outcomes.next() == .some(.cancelled))
        }
    }

    @Test("delay postpones the response")
    func delay() async throws {
        try await withScriptedServer { server in
            try await server.script("/late", [.delayed(0.5, status: 202, body: "late")])
            let client = Client()

            let clock = ContinuousClock()
            let start = clock.now
            let (status, body) = try await client.get(server.baseURL.appendingPathComponent("late"))
            let elapsed = clock.now - start
            #expect(status == 202)
            #expect(body == Data("late".utf8))
            #expect(elapsed >= .milliseconds(450))
        }
    }

    @Test("bodySize produces a body of that many bytes")
    func bodySize() async throws {
        try await withScriptedServer { server in
            try await server.script("/big", [.sized(1_000_000)])
            let client = Client()

            let (status, body) = try await client.get(server.baseURL.appendingPathComponent("big"))
            #expect(status == 200)
            #expect(body.count == 1_000_000)
            #expect(body.allSatisfy { $0 == UInt8(ascii: "x") })
        }
    }

    @Test("HEAD responses carry no body")
    func headHasNoBody() async throws {
        try await withScriptedServer { server in
            try await server.script("/h", [.text(200, "some body")])
            let client = Client()

            var request = URLRequest(url: server.baseURL.appendingPathComponent("h"))
            request.httpMethod = "HEAD"
            let (body, response) = try await client.send(request)
            #expect(response.statusCode == 200)
            #expect(body.isEmpty)
            #expect(response.value(forHTTPHeaderField: "Content-Length") == "9")
        }
    }

    @Test("unscripted paths answer 404 with a JSON error")
    func notFoundByDefault() async throws {
        try await withScriptedServer { server in
            let client = Client()

            let (status, body) = try await client.get(server.baseURL.appendingPathComponent("nowhere"))
            #expect(status == 404)
            let json = try JSONSerialization.jsonObject(with: body) as? [String: String]
            #expect(json == ["message": "no script for /nowhere", "code": "not_found"])
        }
    }

    @Test("reset clears scripts and recorded requests")
    func reset() async throws {
        try await withScriptedServer { server in
            let client = Client()
            let url = server.baseURL.appendingPathComponent("r")

            try await server.script("/r", [.status(200)])
            #expect(try await client.get(url).status == 200)
            try await server.reset()
            #expect(try await server.requests().isEmpty)
            #expect(try await client.get(url).status == 404)
        }
    }

    @Test("the server process exits after stop()")
    func stopEndsTheProcess() async throws {
        let server = try await ScriptedServer.start()
        let client = Client()
        let url = server.baseURL.appendingPathComponent("anything")
        #expect(try await client.get(url).status == 404)

        server.stop()
        server.stop()  // idempotent

        var refused = false
        for _ in 0..<50 where !refused {
            do {
                var request = URLRequest(url: url)
                request.timeoutInterval = 1
                _ = try await client.send(request)
                try await Task.sleep(for: .milliseconds(100))
            } catch {
                refused = true
            }
        }
        #expect(refused)
        for _ in 0..<50 where server.isRunning {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(!server.isRunning)
    }

    @Test("the switchable listener refuses connections while down and serves again on the same port")
    func switchableListener() async throws {
        try await withScriptedServer { server in
            try await server.script("/s", [.text(200, "on")])
            let client = Client()
            let base = try await server.switchableURL()
            #expect(base.port != nil && base.port != server.port)
            let url = base.appendingPathComponent("s")

            // Twice: the second request reuses the pooled keep-alive connection.
            for _ in 0..<2 {
                let (status, body) = try await client.get(url)
                #expect(status == 200)
                #expect(body == Data("on".utf8))
            }

            try await server.setSwitchable(up: false)
            try await server.setSwitchable(up: false)  // idempotent
            // The client still pooled a connection to that port: it is not served either.
            #expect(connectionFailures.contains(await failure(of: client, url)))
            let fresh = Client()
            #expect(await failure(of: fresh, url) == .cannotConnectToHost)
            // The main port is unaffected.
            #expect(try await client.get(server.baseURL.appendingPathComponent("s")).status == 200)

            try await server.setSwitchable(up: true)
            #expect(try await server.switchableURL() == base)  // up again: a no-op, same port
            #expect(try await client.get(url).status == 200)
            #expect(try await fresh.get(url).status == 200)
            // Both ports share scripts and recording: 2 + 1 + 2 requests were served.
            #expect(try await server.requests(path: "/s").count == 5)
        }
    }

    @Test("switching the listener down cuts requests in progress")
    func switchableCutsRequestsInProgress() async throws {
        try await withScriptedServer { server in
            try await server.script("/slow", [.delayed(30, body: "late")])
            let client = Client()
            let url = try await server.switchableURL().appendingPathComponent("slow")

            let call = Task { await failure(of: client, url) }
            _ = try await server.waitForRequests(path: "/slow", count: 1)
            let clock = ContinuousClock()
            let start = clock.now
            try await server.setSwitchable(up: false)
            // Reset at once, mid-delay: a lost connection, not an empty reply.
            #expect(await call.value == .networkConnectionLost)
            #expect(clock.now - start < .seconds(20))   // well before the 30 s delay, even under TSan
        }
    }

    @Test("a repeated Idempotency-Key gets the remembered response; the script advances once")
    func idempotencyReplay() async throws {
        try await withScriptedServer { server in
            try await server.script("/pay", method: "POST", [.json(201, #"{"n":1}"#), .json(201, #"{"n":2}"#)])
            let client = Client()
            let url = server.baseURL.appendingPathComponent("pay")

            let (firstBody, first) = try await client.send(.post(url, key: "k1"))
            #expect(first.statusCode == 201)
            #expect(String(decoding: firstBody, as: UTF8.self) == #"{"n":1}"#)
            #expect(first.value(forHTTPHeaderField: "Idempotent-Replayed") == nil)

            let (againBody, again) = try await client.send(.post(url, key: "k1"))
            #expect(again.statusCode == 201)
            #expect(String(decoding: againBody, as: UTF8.self) == #"{"n":1}"#)
            #expect(again.value(forHTTPHeaderField: "Content-Type") == "application/json")
            #expect(again.value(forHTTPHeaderField: "Idempotent-Replayed") == "true")

            let (otherBody, other) = try await client.send(.post(url, key: "k2"))
            #expect(String(decoding: otherBody, as: UTF8.self) == #"{"n":2}"#)
            #expect(other.value(forHTTPHeaderField: "Idempotent-Replayed") == nil)

            #expect(try await server.idempotencyKeys() == [
                "k1": IdempotencyRecord(processed: 1, seen: 2),
                "k2": IdempotencyRecord(processed: 1, seen: 1),
            ])
            #expect(try await server.requests(path: "/pay").map(\.replayed) == [false, true, false])

            try await server.reset()
            #expect(try await server.idempotencyKeys().isEmpty)
        }
    }

    @Test("a key in progress answers 409; a 503 or a response never sent is not remembered")
    func idempotencyInProgressAndUnsent() async throws {
        try await withScriptedServer { server in
            // The first is in progress until the test releases it, however slow the machine.
            try await server.script("/slow", [.afterRelease(body: "slow")])
            try await server.script("/held", [.hold, .text(200, "done")])
            let client = Client()

            let slow = server.baseURL.appendingPathComponent("slow")
            let first = Task { try await client.send(.post(slow, key: "busy")) }
            _ = try await server.waitForRequests(path: "/slow", count: 1)
            let (conflictBody, conflict) = try await client.send(.post(slow, key: "busy"))
            #expect(conflict.statusCode == 409)
            let json = try JSONSerialization.jsonObject(with: conflictBody) as? [String: String]
            #expect(json == ["message": "request with this key in progress", "code": "idempotency_in_progress"])
            try await server.release(path: "/slow")
            #expect(try await first.value.1.statusCode == 200)
            #expect(try await client.send(.post(slow, key: "busy")).1
                .value(forHTTPHeaderField: "Idempotent-Replayed") == "true")
            #expect(try await server.idempotencyKeys()["busy"] == IdempotencyRecord(processed: 1, seen: 3))

            // A 503 is not remembered either: the retry is processed.
            try await server.script("/busy", [.status(503), .status(201)])
            let busy = server.baseURL.appendingPathComponent("busy")
            #expect(try await client.send(.post(busy, key: "unavailable")).1.statusCode == 503)
            #expect(try await client.send(.post(busy, key: "unavailable")).1.statusCode == 201)
            #expect(try await client.send(.post(busy, key: "unavailable")).1
                .value(forHTTPHeaderField: "Idempotent-Replayed") == "true")
            #expect(try await server.idempotencyKeys()["unavailable"] == IdempotencyRecord(processed: 1, seen: 3))

            // The held request's client leaves without a response: its retry is processed.
            let held = server.baseURL.appendingPathComponent("held")
            let task = client.session.dataTask(with: .post(held, key: "gone")) { _, _, _ in }
            task.resume()
            _ = try await server.waitForRequests(path: "/held", count: 1)
            task.cancel()
            #expect(try await server.waitForDisconnect(path: "/held"))
            let (retryBody, retry) = try await client.send(.post(held, key: "gone"))
            #expect(String(decoding: retryBody, as: UTF8.self) == "done")
            #expect(retry.value(forHTTPHeaderField: "Idempotent-Replayed") == nil)
            let gone = try await server.idempotencyKeys()["gone"]
            let heldRequests = try await server.requests(path: "/held").map(\.replayed)
            #expect(gone == IdempotencyRecord(processed: 1, seen: 2))
            #expect(heldRequests == [false, false])
        }
    }

    @Test("withScriptedServer stops the server when the body throws")
    func withScriptedServerStopsOnError() async throws {
        struct Boom: Error {}
        let captured = Captured()
        await #expect(throws: Boom.self) {
            try await withScriptedServer { server in
                captured.server = server
                throw Boom()
            }
        }
        let server = try #require(captured.server)
        for _ in 0..<50 where server.isRunning {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(!server.isRunning)
    }
}

// MARK: - Helpers

/// A plain ephemeral URLSession for talking to the scripted server. Never invalidated: a test
/// that ends early (a timeout under load) may leave a request task behind, and
/// FoundationNetworking traps ("Session invalidated") when a task starts on an invalidated session.
private final class Client: Sendable {
    let session: URLSession

    init() {
        session = URLSession(configuration: .ephemeral)
    }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        return (data, try #require(response as? HTTPURLResponse))
    }

    func get(_ url: URL) async throws -> (status: Int, body: Data) {
        let (data, response) = try await send(URLRequest(url: url))
        return (response.statusCode, data)
    }
}

/// How a request to a listener that went offline may fail: refused, or cut mid-exchange.
private let connectionFailures: Set<URLError.Code?> = [.cannotConnectToHost, .networkConnectionLost]

/// The `URLError` code a GET of `url` failed with (`nil` if it succeeded or failed otherwise).
private func failure(of client: Client, _ url: URL) async -> URLError.Code? {
    var request = URLRequest(url: url)
    request.timeoutInterval = 10
    do {
        _ = try await client.send(request)
        return nil
    } catch {
        return (error as? URLError)?.code
    }
}

extension URLRequest {
    /// A POST to `url` carrying `Idempotency-Key: key`.
    fileprivate static func post(_ url: URL, key: String) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue(key, forHTTPHeaderField: "Idempotency-Key")
        request.httpBody = Data("amount=1".utf8)
        return request
    }
}

/// Lets a test read back the server `withScriptedServer` handed to its body.
private final class Captured: @unchecked Sendable {
    // Written once inside the body, read after `withScriptedServer` returned: no overlap.
    var server: ScriptedServer?
}
