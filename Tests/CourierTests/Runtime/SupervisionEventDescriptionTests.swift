import Testing

@testable import Courier

@Suite struct SupervisionEventDescriptionTests {
    private struct Broken: Error, CustomStringConvertible {
        var description: String { "disk I/O error" }
    }

    @Test("supervision events in a line, a failure with its error")
    func lines() {
        #expect(SupervisionEvent.started(child: "Cache").description == "Cache started")
        #expect(SupervisionEvent.failed(child: "Cache", error: Broken()).description == "Cache failed: disk I/O error")
        #expect(SupervisionEvent.exited(child: "SyncTimer").description == "SyncTimer exited")
        #expect(SupervisionEvent.restarted(child: "Cache", count: 1).description == "Cache restarted (1 restart so far)")
        #expect(SupervisionEvent.restarted(child: "Cache", count: 2).description == "Cache restarted (2 restarts so far)")
        #expect(SupervisionEvent.stopped(child: "Cache").description == "Cache stopped")
        #expect(SupervisionEvent.gaveUp(supervisor: "client", child: "Cache").description == "client gave up after Cache failed too often")
        #expect(SupervisionEvent.shutDown(supervisor: "client").description == "client shut down")
    }
}
