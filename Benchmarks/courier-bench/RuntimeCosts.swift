import Courier
import Foundation

/// Measures the runtime's message costs on a trivial component under a supervisor.
enum RuntimeCosts {
    actor Counter: Component {
        enum Message: Sendable {
            case add(Int)
            case total(Reply<Int>)
        }
        private var sum = 0
        func handle(_ message: Message) {
            switch message {
            case .add(let value): sum += value
            case .total(let reply): reply.succeed(sum)
            }
        }
    }

    static func measure(messages: Int) async -> (tellNanos: Double, askNanos: Double) {
        let mailbox = Mailbox<Counter.Message>(name: "counter")
        let supervisor = Supervisor(name: "bench")
        await supervisor.start([.component(mailbox: mailbox) { Counter() }])
        let clock = ContinuousClock()

        // Tells: enqueue them all, then one ask that returns after the last has been handled.
        let tellStart = clock.now
        for value in 0..<messages { try? mailbox.send(.add(value)) }
        _ = try? await mailbox.ask { .total($0) }
        let tells = clock.now - tellStart

        let asks = messages / 10
        let askStart = clock.now
        for _ in 0..<asks { _ = try? await mailbox.ask { .total($0) } }
        let asked = clock.now - askStart

        await supervisor.shutdown()
        return (tells.inSeconds * 1e9 / Double(messages), asked.inSeconds * 1e9 / Double(asks))
    }
}
