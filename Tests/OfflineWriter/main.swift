// A helper for the offline queue's kill -9 test: enqueues writes in a loop and prints
// "<item id> <tag>" for each once `enqueue` returned (the write is durable then), while the
// client drains the queue to the server in the background. The test kills it with SIGKILL at
// random points, reopens the store, and checks that nothing printed was lost.
//
//     OfflineWriter <database path> <server base URL> <tag prefix>
import Courier
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 4, let baseURL = URL(string: arguments[2]) else {
    FileHandle.standardError.write(Data("usage: OfflineWriter <database path> <base URL> <tag prefix>\n".utf8))
    exit(2)
}
let (path, prefix) = (arguments[1], arguments[3])

var configuration = APIClient.Configuration(baseURL: baseURL, security: nil, retryPolicy: .never)
configuration.connectivity = .init(debounce: .zero, watchesLink: false)
configuration.offline = .init(storageFile: URL(fileURLWithPath: path), maxItems: 100_000, drainInterval: .milliseconds(50))
let client = APIClient(configuration: configuration)

var sequence = 0
while true {
    sequence += 1
    let tag = "\(prefix)-\(sequence)"
    do {
        let id = try await client.offline.enqueue(Endpoint<EmptyResponse>(path: "writes", method: .post, body: ["tag": tag]))
        // Unbuffered: the line is out as soon as enqueue returned.
        FileHandle.standardOutput.write(Data("\(id) \(tag)\n".utf8))
    } catch {
        FileHandle.standardError.write(Data("enqueue failed: \(error)\n".utf8))
        exit(1)
    }
}
