import Foundation
import Testing

@testable import Courier

/// Progress throttling, on a clock the test moves.
@Suite struct ProgressReporterTests {
    @Test("reports the first bytes, then at most once per interval, the total when reached, and the end once")
    func throttles() {
        let time = Locked<Duration>(.zero)
        let reports = Locked<[Int64]>([])
        let reporter = ProgressReporter(
            total: 1000, interval: .milliseconds(100), now: { time.withLock { $0 } },
            handler: { progress in reports.withLock { $0.append(progress.completedBytes) } })
        reporter.advance(by: 10)                                           // first: reported
        for _ in 0..<50 { reporter.advance(by: 1) }                         // same instant: none
        time.withLock { $0 = .milliseconds(99) }
        reporter.advance(by: 1)                                            // 99 ms later: none
        time.withLock { $0 = .milliseconds(100) }
        reporter.advance(by: 1)                                            // 100 ms: reported
        reporter.advance(by: 938)                                          // the total: reported
        reporter.finish()                                                  // already reported
        #expect(reports.withLock { $0 } == [10, 62, 1000])
        reporter.restart()
        reporter.advance(by: 5)
        reporter.finish()                                                  // the end, not yet reported
        #expect(reports.withLock { $0 } == [10, 62, 1000, 0, 5])
    }

    @Test("fraction completed: nil without a total, 1 for an empty body, capped at 1")
    func fraction() {
        #expect(TransferProgress(completedBytes: 5, totalBytes: nil).fractionCompleted == nil)
        #expect(TransferProgress(completedBytes: 0, totalBytes: 0).fractionCompleted == 1)
        #expect(TransferProgress(completedBytes: 50, totalBytes: 200).fractionCompleted == 0.25)
        #expect(TransferProgress(completedBytes: 300, totalBytes: 200).fractionCompleted == 1)
    }
}
