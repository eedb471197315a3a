import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `client.graphQL.subscribe` over graphql-sse (distinct connections), chosen by
/// `GraphQLConfiguration.subscriptionTransport`: against Strawberry's graphql-sse, and the
/// scripted server where the request sent and a broken stream are needed.
@Suite(.serialized, .timeLimit(.minutes(5))) struct GraphQLServerSentEventsTests {
    private func sseClient(_ baseURL: URL) -> APIClient {
        client(baseURL, retryPolicy: .never) { $0.graphQL.subscriptionTransport = .serverSentEvents }
    }

    @Test("graphql-sse: every result typed and in order; complete ends the sequence without subscribing again")
    func resultsThenComplete() async throws {
        try await withGraphQLServer { server in
            let api = sseClient(server.baseURL)
            var iterator = api.graphQL.subscribe(Countdown(variables: .init(start: 4))).makeAsyncIterator()
            var values: [Int] = []
            while let result = try await iterator.next() {
                #expect(result.errors.isEmpty)
                #expect(result.response.headers["Content-Type"] == "text/event-stream")
                values.append(try #require(result.data).countdown)
            }
            #expect(values == [4, 3, 2, 1, 0])
            #expect(try await iterator.next() == nil)
            #expect(try await server.stats().executions["countdown"] == 1)
            await api.shutdown()
        }
    }

    @Test("graphql-sse: an error in the stream comes as a result with errors, then the sequence ends; a refused document too")
    func errorsSurface() async throws {
        try await withGraphQLServer { server in
            let api = sseClient(server.baseURL)
            var values: [Int] = []
            var errors: [String] = []
            for try await result in api.graphQL.subscribe(Failing(variables: .init(after: 2))) {
                if let data = result.data { values.append(data.failing) }
                errors += result.errors.map(\.message)
            }
            #expect(values == [0, 1])
            #expect(errors == ["the feed broke"])

            var refusals: [GraphQLResult<UnknownFieldSubscription.Data>] = []
            for try await result in api.graphQL.subscribe(UnknownFieldSubscription()) { refusals.append(result) }
            #expect(refusals.count == 1)
            #expect(refusals.first?.data == nil)
            #expect(refusals.first?.errors.first?.message.contains("nope") == true)
            await api.shutdown()
        }
    }

    @Test("graphql-sse: leaving the loop closes the connection: the server's generator is closed")
    func cancellationCloses() async throws {
        try await withGraphQLServer { server in
            let api = sseClient(server.baseURL)
            var ticks: [Int] = []
            for try await result in api.graphQL.subscribe(Ticks()) {
                ticks.append(try #require(result.data).ticks)
                if ticks.count == 3 { break }
            }
            #expect(ticks == [0, 1, 2])
            // The server notices the closed connection on its next write.
            try await server.waitForExecutions(of: "ticksClosed", count: 1)
            #expect(try await server.stats().executions["ticksClosed"] == 1)
            #expect(try await server.stats().executions["ticks"] == 1)
            await api.shutdown()
        }
    }

    @Test("graphql-sse on the wire: a POST of the operation asking for text/event-stream; a cut stream subscribes again, complete ends it")
    func onTheWire() async throws {
        try await withScriptedServer { server in
            try await server.script("/graphql", method: "POST", [
                .events(["retry: 1\nevent: next\ndata: {\"data\":{\"countdown\":2}}\n\n", "event: next\ndata: {\"da"], end: .cut),
                .events(["event: next\ndata: {\"data\":{\"countdown\":1}}\n\n", "event: complete\ndata:\n\n"], end: .hang),
                .events(["event: next\ndata: {\"data\":{\"countdown\":0}}\n\n"]),
            ])
            let api = sseClient(server.baseURL)
            var values: [Int] = []
            for try await result in api.graphQL.subscribe(Countdown(variables: .init(start: 2))) {
                values.append(try #require(result.data).countdown)
            }
            #expect(values == [2, 1])
            let sent = try await server.requests(path: "/graphql")
            #expect(sent.count == 2)
            #expect(sent.map { $0.header("Accept") } == ["text/event-stream", "text/event-stream"])
            let body = try #require(try JSONSerialization.jsonObject(with: sent[0].body) as? [String: Any])
            #expect(body["query"] as? String == Countdown.document)
            #expect(body["operationName"] as? String == "Countdown")
            #expect((body["variables"] as? [String: Any])?["start"] as? Int == 2)
            // complete closed the connection, though the server kept it open.
            #expect(try await server.waitForDisconnect(path: "/graphql"))
            await api.shutdown()
        }
    }
}
