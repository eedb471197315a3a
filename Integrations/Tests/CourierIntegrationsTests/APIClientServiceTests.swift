import Courier
import CourierServiceLifecycle
import CourierTesting
import Foundation
import Logging
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing

@Suite struct APIClientServiceTests {
    @Test("run returns on graceful shutdown, having shut the client down; queued writes stay on disk")
    func gracefulShutdownKeepsQueuedWrites() async throws {
        let file = temporaryFile("queue.sqlite")
        let transport = ScriptedTransport(fallback: .fail(.noConnection(underlying: nil)))
        let client = APIClient(configuration: configuration(transport) { $0.offline = .init(storageFile: file) })
        let id = try await client.offline.enqueue(Endpoint<EmptyResponse>(path: "notes", method: .post, body: ["text": "a"], version: .v1))

        let service = APIClientService(client)
        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await service.run() }
                trigger.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        // Shut down: calls are refused.
        await #expect(throws: NetworkError.self) { try await client.send(Endpoint<User>(path: "users/1", version: .v1)) }

        // The write is still there for the next run.
        let next = APIClient(configuration: configuration(transport) { $0.offline = .init(storageFile: file) })
        let items = try await next.offline.items()
        #expect(items.map(\.id) == [id])
        await next.shutdown()
    }

    @Test("in a service group: run returns when the group shuts down gracefully")
    func serviceGroup() async throws {
        let client = APIClient(configuration: configuration(ScriptedTransport()))
        let events = client.events()
        let group = ServiceGroup(services: [APIClientService(client)], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        // The client's streams end only at its shutdown.
        for await _ in events {}
        await #expect(throws: NetworkError.self) { try await client.send(Endpoint<User>(path: "users/1", version: .v1)) }
    }
}
