import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `query:` as a dictionary literal: the pairs in the order written, repeated names kept, a nil
/// value as a bare name; the server gets exactly that.
@Suite struct EndpointQueryPairsTests {
    private let base = URL(string: "https://api.example.com/api")!

    @Test("the pairs in the order written, names repeated, nil as a bare name, encoded as query items are")
    func order() throws {
        let api = client(base, transport: InMemoryTransport(always: HTTPResponse(status: 200)))
        defer { Task { await api.shutdown() } }
        let endpoint = Endpoint<Data>(path: "search", query: ["z": "1", "a": "x y+z", "tag": "a", "tag": "b", "flag": nil], version: .v1)
        #expect(try api.url(for: endpoint).absoluteString == "https://api.example.com/api/v1/search?z=1&a=x%20y%2Bz&tag=a&tag=b&flag")
        #expect(endpoint.query == [
            URLQueryItem(name: "z", value: "1"), URLQueryItem(name: "a", value: "x y+z"), URLQueryItem(name: "tag", value: "a"),
            URLQueryItem(name: "tag", value: "b"), URLQueryItem(name: "flag", value: nil),
        ])
        // Every initializer takes it.
        let posted = Endpoint<Data>(path: "forms", method: .post, query: ["b": "2", "a": "1"], body: .text("t"))
        #expect(try api.url(for: posted).absoluteString == "https://api.example.com/api/forms?b=2&a=1")
        let segments = Endpoint<Data>(segments: ["files", "a/b"], query: ["v": "2", "u": "1"])
        #expect(try api.url(for: segments).absoluteString == "https://api.example.com/api/files/a%2Fb?v=2&u=1")
        let sent = Endpoint<EmptyResponse>(segments: ["notes"], method: .put, query: ["k": "v"], body: .text("t"))
        #expect(try api.url(for: sent).absoluteString == "https://api.example.com/api/notes?k=v")
        // An array of query items still works as before.
        #expect(try api.url(for: Endpoint<Data>(path: "x", query: [URLQueryItem(name: "q", value: "1")])).absoluteString
            == "https://api.example.com/api/x?q=1")
    }

    @Test("the scripted server sees the query in the order written")
    func onTheWire() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/search", [.json(200, "{}")])
            let api = client(server.baseURL, retryPolicy: .never)
            _ = try await api.data(for: Endpoint<Data>(path: "search", query: ["q": "swift", "page": "2", "after": "2026-01-01"], version: .v1))
            #expect(try await server.requests(path: "/v1/search").first?.path == "/v1/search?q=swift&page=2&after=2026-01-01")
            await api.shutdown()
        }
    }

    @Test("a [String: String] value is sent sorted by name; a literal still goes in the order written")
    func dictionaryValue() throws {
        let api = client(base, transport: InMemoryTransport(always: HTTPResponse(status: 200)))
        defer { Task { await api.shutdown() } }
        let filters: [String: String] = ["page": "2", "q": "swift", "after": "2026-01-01", "b": "x y+z"]
        let expected = "after=2026-01-01&b=x%20y%2Bz&page=2&q=swift"
        let root = "https://api.example.com/api/s?"
        #expect(try api.url(for: Endpoint<Data>(path: "search", query: filters)).absoluteString
            == "https://api.example.com/api/search?" + expected)
        // Every initializer takes it.
        #expect(try api.url(for: Endpoint<Data>(path: "s", method: .post, query: filters, body: .text("t"))).absoluteString == root + expected)
        #expect(try api.url(for: Endpoint<Data>(segments: ["s"], query: filters)).absoluteString == root + expected)
        #expect(try api.url(for: Endpoint<EmptyResponse>(segments: ["s"], method: .put, query: filters, body: .text("t"))).absoluteString
            == root + expected)
        #expect(try api.url(for: Endpoint<Data>(path: "x", query: [String: String]())).absoluteString == "https://api.example.com/api/x")
        // A literal that a dictionary could hold too is still written-order pairs (not sorted), and
        // a repeated name in a literal is kept rather than trapping as a dictionary literal would.
        #expect(try api.url(for: Endpoint<Data>(path: "s", query: ["z": "1", "a": "2"])).absoluteString == root + "z=1&a=2")
        #expect(try api.url(for: Endpoint<Data>(segments: ["s"], query: ["z": "1", "a": "2"], body: .text("t"))).absoluteString == root + "z=1&a=2")
        #expect(try api.url(for: Endpoint<Data>(path: "s", query: ["t": "1", "t": "2"])).absoluteString == root + "t=1&t=2")
    }

    @Test("the scripted server sees a dictionary's query sorted by name")
    func dictionaryOnTheWire() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/search", [.json(200, "{}")])
            let api = client(server.baseURL, retryPolicy: .never)
            let filters = ["q": "swift", "page": "2", "after": "2026-01-01"]
            _ = try await api.data(for: Endpoint<Data>(path: "search", query: filters, version: .v1))
            #expect(try await server.requests(path: "/v1/search").first?.path == "/v1/search?after=2026-01-01&page=2&q=swift")
            await api.shutdown()
        }
    }
}
