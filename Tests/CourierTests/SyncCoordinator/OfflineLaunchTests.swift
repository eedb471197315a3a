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
        #expect(await second.offline.pendingCount == 20)
        let progress = try await second.offline.sync()
        #expect(progress.total == 20 && progress.done == 0, "\(progress)")
        await second.shutdown()

        // The server up, and a write the instant the client exists: it must not overtake them.
        try await server.setSwitchable(up: true)
        let third = offlineClient(base, directory: directory)
        let events = third.offline.events()
        let id = await queuedID { () throws(NetworkError) in _ = try await third.send(noteWrite(20)) }
        #expect(id == nil || id! > 20)
        _ = await collect(events) { deliveredCount($0) == (id == nil ? 20 : 21) }
        let received = try await server.requests(path: "/notes")
        #expect(received.map(\.bodyText) == (0...20).map { #"{"n":\#($0)}"# })
        #expect(await third.offline.pendingCount == 0)
        await third.shutdown()
    }
}
