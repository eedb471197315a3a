import Courier
import CourierTesting
import Foundation

struct User: Decodable, Sendable, Equatable { let id: Int; let name: String }

let base = URL(string: "https://api.example.com")!
/// Three attempts, retried at once: no waiting in tests.
let immediateRetries = RetryPolicy(maxAttempts: 3, retryableStatusCodes: [503], backoff: .immediate, jitter: false)

func configuration(_ transport: ScriptedTransport, _ configure: (inout APIClient.Configuration) -> Void = { _ in }) -> APIClient.Configuration {
    var configuration = APIClient.Configuration(baseURL: base, transport: transport, retryPolicy: immediateRetries)
    configure(&configuration)
    return configuration
}

/// A fresh file path in a temporary folder of its own.
func temporaryFile(_ name: String) -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-integrations-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent(name)
}
