import Foundation
import Testing

@testable import Courier

/// `LinkWatcher` against the real kernel. Where netlink is not available (a sandbox, Apple
/// platforms) `open()` returns nil and the tests that need a watcher have nothing to check.
@Suite(.serialized, .timeLimit(.minutes(5))) struct LinkWatcherTests {
    @Test("hasUsableLink answers without crashing")
    func hasUsableLinkAnswers() {
        let first = LinkWatcher.hasUsableLink()
        let second = LinkWatcher.hasUsableLink()
        // No link changes during a test run, so two looks agree.
        #expect(first == second)
    }

    @Test("start reports hasUsableLink first")
    func startReportsHasUsableLinkFirst() async throws {
        guard let watcher = LinkWatcher.open() else { return }
        let expected = LinkWatcher.hasUsableLink()
        let (reports, continuation) = AsyncStream.makeStream(of: Bool.self)
        watcher.start { continuation.yield($0) }
        var iterator = reports.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first == expected)
        watcher.close()
        continuation.finish()
    }

    @Test("close is idempotent and returns promptly")
    func closeIsIdempotentAndPrompt() async throws {
        guard let watcher = LinkWatcher.open() else { return }
        let (reports, continuation) = AsyncStream.makeStream(of: Bool.self)
        watcher.start { continuation.yield($0) }
        var iterator = reports.makeAsyncIterator()
        _ = await iterator.next()
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            watcher.close()
            watcher.close()
        }
        // It wakes the reader at once; the bound only catches a close that waits for netlink
        // traffic (which may never come), with room for a loaded machine under TSan.
        #expect(elapsed < .seconds(10))
        watcher.close()
    }

    @Test("no report arrives once close has returned")
    func noReportAfterClose() async throws {
        // Closing right after start races the first report: it either arrives before close
        // returns or not at all.
        for _ in 0..<100 {
            guard let watcher = LinkWatcher.open() else { return }
            let closeReturned = Locked(false)
            let lateReports = Locked(0)
            watcher.start { _ in
                if closeReturned.withLock({ $0 }) { lateReports.withLock { $0 += 1 } }
            }
            watcher.close()
            closeReturned.withLock { $0 = true }
            watcher.close()
            #expect(lateReports.withLock { $0 } == 0)
        }
    }

    @Test("close from inside onChange does not deadlock")
    func closeFromInsideOnChange() async throws {
        guard let watcher = LinkWatcher.open() else { return }
        let (reports, continuation) = AsyncStream.makeStream(of: Bool.self)
        watcher.start { usable in
            watcher.close()
            continuation.yield(usable)
            continuation.finish()
        }
        var count = 0
        for await _ in reports { count += 1 }
        #expect(count == 1)
        // The thread has exited or is exiting; this close waits for it.
        watcher.close()
    }

    @Test("start after close does nothing")
    func startAfterClose() async throws {
        guard let watcher = LinkWatcher.open() else { return }
        watcher.close()
        let reports = Locked(0)
        watcher.start { _ in reports.withLock { $0 += 1 } }
        watcher.close()
        #expect(reports.withLock { $0 } == 0)
    }

    #if os(Linux)
    @Test("opening and closing 50 watchers leaks no file descriptors")
    func noDescriptorLeak() async throws {
        guard let probe = LinkWatcher.open() else { return }
        probe.close()
        let before = try openDescriptorCount()
        for index in 0..<50 {
            guard let watcher = LinkWatcher.open() else {
                Issue.record("open failed after succeeding once")
                return
            }
            if index.isMultiple(of: 2) {
                // Started: the reader thread closes the descriptors before close returns.
                let (reports, continuation) = AsyncStream.makeStream(of: Bool.self)
                watcher.start { continuation.yield($0) }
                var iterator = reports.makeAsyncIterator()
                _ = await iterator.next()
            }
            watcher.close()
        }
        do {
            // Never closed nor started: released, it closes its descriptors itself.
            _ = LinkWatcher.open()
        }
        let after = try openDescriptorCount()
        // Each watcher holds three descriptors, so a leak would show at least 50. The slack
        // absorbs descriptors other suites running in parallel open meanwhile.
        #expect(after - before < 25, "before: \(before), after: \(after)")
    }

    /// The number of open descriptors in this process, from `/proc/self/fd`.
    private func openDescriptorCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }
    #endif
}
