import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite(.timeLimit(.minutes(2))) struct OfflineLaunchTests {
    @Test("launched with stored writes: the count and a sync's total include them from the first call, and a write made at once goes out after them")
    func launchThenWrite() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/notes", method: "POST", [.json(201, "{}")])
        let base = try await server.switchableURL(up: false)
        let directory = try temporaryDirectory()
        let first = offlineClient(base, directory: directory)
        for n in 0..<20 { _ = try await first.offline.enqueue(noteWrite(n)) }
        await first.shutdown()

        // The server down: nothing can leave, so the numbers are exact.
        let second = offlineClient(base, directory: directory)
        #expect(try await second.offline.pendingCount == 20)
        let progress = try await second.offline.sync()
        #expect(progress.total == 20 && progress.done == 0, "\(progress)")
        await second.shutdown()

        // The server up, and a write the instant the client exists: it must not overtake them.
        try await server.setSwitchable(up: true)
        let third = offlineClient(base, directory: directory)
        let events = third.offline.events()
        let id = await queuedID { () throws(NetworkError) in try await third.offline.send(noteWrite(20)) }
        #expect(id == nil || id! > 20)
        _ = await collect(events) { deliveredCount($0) == (id == nil ? 20 : 21) }
        let received = try await server.requests(path: "/notes")
        #expect(received.map(\.bodyText) == (0...20).map { #"{"n":\#($0)}"# })
        #expect(try await third.offline.pendingCount == 0)
        await third.shutdown()
    }

    @Test("a queue that fails on its first message (the open) still opens its store: the count, and a queueable write made online, return instead of waiting for a message that never comes")
    func failedOpenIsRetried() async throws {
        let transport = InMemoryTransport { _ throws(NetworkError) in HTTPResponse(status: 201, headers: [:], body: Data("{}".utf8)) }
        let opens = Locked(0)
        // Restarts wait on the system clock, briefly.
        let restarts = RestartPolicy(maxRestarts: 5, period: .seconds(60), initialDelay: .milliseconds(1), maximumDelay: .milliseconds(10))
        let api = client(URL(string: "https://api.example.com")!, transport: transport, retryPolicy: .never, clock: SystemTimeSource()) {
            $0.restarts = restarts
            $0.connectivity = .init(debounce: .zero, watchesLink: false)
            var offline = APIClient.Configuration.Offline(storageFile: try? temporaryDirectory().appendingPathComponent("offline.sqlite"))
            // The store's first open fails as a failing disk does: the queue fails and restarts.
            offline.storage = FaultyOfflineStorage { step in
                guard step == .open else { return nil }
                return opens.withLock { $0 += 1; return $0 } == 1 ? InjectedFailure(label: "queue") : nil
            }
            $0.offline = offline
        }
        #expect(try await api.offline.pendingCount == 0)
        _ = try await api.offline.send(noteWrite(1))
        #expect(opens.withLock { $0 } >= 2)   // the first open failed, a later one did not
        await api.shutdown()
    }

    @Test("a supervisor that gives up before the queue ever opened its store releases whoever waits for that open: the count, a queueable write and a sync return")
    func gaveUpBeforeOpen() async throws {
        let transport = InMemoryTransport { _ throws(NetworkError) in HTTPResponse(status: 201, headers: [:], body: Data("{}".utf8)) }
        let restarts = RestartPolicy(maxRestarts: 1, period: .seconds(60), initialDelay: .milliseconds(1), maximumDelay: .milliseconds(1))
        let api = client(URL(string: "https://api.example.com")!, transport: transport, retryPolicy: .never, clock: SystemTimeSource()) {
            $0.restarts = restarts
            $0.connectivity = .init(debounce: .zero, watchesLink: false)
            var offline = APIClient.Configuration.Offline(storageFile: try? temporaryDirectory().appendingPathComponent("offline.sqlite"))
            offline.storage = FaultyOfflineStorage { _ in InjectedFailure(label: "queue") }   // it never opens
            $0.offline = offline
        }
        _ = await collect(api.supervisionEvents()) { $0.last.map { if case .gaveUp = $0 { true } else { false } } ?? false }
        // Each returns (before the fix, each waited for an open that never came); what it
        // returns depends on how far the components' stop has got.
        #expect(try await api.offline.pendingCount == 0)
        _ = try? await api.offline.send(noteWrite(1))
        _ = try? await api.offline.sync()
        await api.shutdown()
    }
}
