import Courier
import CourierTesting
import Foundation

/// How many transport calls `callers` identical concurrent GETs cost through the cache: the
/// transport answers after 20 ms, so every caller arrives while the first fetch runs.
enum Coalescing {
    static func transportCalls(callers: Int) async -> (calls: Int, failures: Int) {
        let transport = ScriptedTransport()
        transport.script("/v1/users/42", [.delayed(.milliseconds(20), .json(String(decoding: sampleBody, as: UTF8.self)))])
        let client = APIClient(configuration: .init(
            baseURL: URL(string: "https://api.example.com")!, transport: transport, caching: .init(), retryPolicy: .never))
        let endpoint = Endpoint<User>(path: "v1/users/42")
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<callers {
                group.addTask { (try? await client.send(endpoint)) == nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        await client.shutdown()
        return (transport.requests(to: "/v1/users/42").count, failures)
    }
}
