import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite struct ReplyTests {
    /// Three parties race to answer one handle (the component, a failure, a shutdown that
    /// drops it): exactly one wins, the asker is resumed once (a double resume would trap).
    @Test("exactly once under races")
    func exactlyOnceUnderRaces() async throws {
        var outcomes: [String: Int] = [:]
        for round in 0..<2_000 {
            let racers = Locked<[Task<Bool, Never>]>([])
            let outcome: String
            do {
                let value: Int = try await withUnsafeThrowingContinuation { continuation in
                    let reply = Reply<Int>(slot: .init(.task(continuation)))
                    racers.withLock { racers in
                        racers.append(Task.detached { reply.succeed(round) })
                        racers.append(Task.detached { reply.fail(RuntimeError.componentRestarted("probe")) })
                        racers.append(Task.detached { reply.fail(RuntimeError.componentUnavailable("probe")) })
                    }
                }
                #expect(value == round)
                outcome = "value"
            } catch RuntimeError.componentRestarted {
                outcome = "restarted"
            } catch RuntimeError.componentUnavailable {
                outcome = "unavailable"
            }
            outcomes[outcome, default: 0] += 1
            var winners = 0
            for racer in racers.withLock({ $0 }) where await racer.value { winners += 1 }
            #expect(winners == 1, "round \(round)")
        }
        #expect(outcomes.values.reduce(0, +) == 2_000)
    }

    @Test("a dropped handle answers the asker")
    func aDroppedHandleAnswersTheAsker() async {
        await #expect(throws: RuntimeError.replyDropped) {
            let _: Int = try await withUnsafeThrowingContinuation { continuation in
                _ = Reply<Int>(slot: .init(.task(continuation)))
            }
        }
    }

    @Test("later answers are ignored")
    func laterAnswersAreIgnored() async throws {
        let value: Int = try await withUnsafeThrowingContinuation { continuation in
            let reply = Reply<Int>(slot: .init(.task(continuation)))
            #expect(reply.succeed(1))
            #expect(!reply.succeed(2))
            #expect(!reply.fail(NetworkError.cancelled))
            #expect(reply.isAnswered)
        }
        #expect(value == 1)
    }
}
