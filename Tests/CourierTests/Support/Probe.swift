@testable import Courier
import CourierTesting
import Testing

/// What a probe component did, in order, shared across its restarts.
final class ProbeLog: Sendable {
    private let entries = Locked<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// A failure injected by a test.
struct InjectedFailure: Error, Equatable {
    let label: String
}

/// A test component: echoes, fails on demand, or blocks until cancelled.
actor Probe: Component {
    enum Message: Sendable {
        /// Answers `value`, after logging it.
        case echo(Int, Reply<Int>)
        /// Fails the component (the reply, if any, is dropped).
        case crash(Reply<Int>?)
        /// Blocks on `clock` for an hour (until cancelled), then answers.
        case block(Reply<Int>)
        /// Logs `text` (a tell).
        case note(String)
    }

    let name: String
    let log: ProbeLog
    let clock: any TimeSource

    init(name: String, log: ProbeLog, clock: any TimeSource = SystemTimeSource()) {
        self.name = name
        self.log = log
        self.clock = clock
        log.append("init(\(name))")
    }

    func handle(_ message: consuming Message) async throws {
        switch message {
        case .echo(let value, let reply):
            log.append("\(name):\(value)")
            reply.succeed(value)
        case .crash:
            log.append("\(name):crash")
            throw InjectedFailure(label: name)
        case .block(let reply):
            try await clock.sleep(for: .seconds(3600))
            reply.succeed(-1)
        case .note(let text):
            log.append("\(name):\(text)")
        }
    }
}

extension ChildSpec {
    static func probe(
        _ name: String, mailbox: Mailbox<Probe.Message>, log: ProbeLog,
        restart: RestartType = .permanent, clock: any TimeSource = SystemTimeSource(),
        deadline: Duration = .seconds(5)
    ) -> ChildSpec {
        .component(name, mailbox: mailbox, restart: restart, shutdownDeadline: deadline) {
            Probe(name: name, log: log, clock: clock)
        }
    }
}

/// Reads a supervisor's events one at a time, so a test can wait for the one it expects.
final class EventCursor {
    private var iterator: AsyncStream<SupervisionEvent>.Iterator
    private(set) var seen: [String] = []

    init(_ events: AsyncStream<SupervisionEvent>) {
        iterator = events.makeAsyncIterator()
    }

    /// Reads events until one whose summary is `summary`; returns those read on the way
    /// (including it). Fails the test if the stream ends first.
    @discardableResult
    func until(_ summary: String, sourceLocation: SourceLocation = #_sourceLocation) async -> [String] {
        var read: [String] = []
        while let event = await iterator.next() {
            read.append(event.summary)
            seen.append(event.summary)
            if event.summary == summary { return read }
        }
        Issue.record("event stream ended before \(summary); saw \(read)", sourceLocation: sourceLocation)
        return read
    }

    /// Reads events until every one of `summaries` has been seen (in any order).
    @discardableResult
    func untilAll(_ summaries: Set<String>, sourceLocation: SourceLocation = #_sourceLocation) async -> [String] {
        var missing = summaries.subtracting(seen)
        var read: [String] = []
        while !missing.isEmpty, let event = await iterator.next() {
            read.append(event.summary)
            seen.append(event.summary)
            missing.remove(event.summary)
        }
        if !missing.isEmpty { Issue.record("event stream ended before \(missing); saw \(read)", sourceLocation: sourceLocation) }
        return read
    }

    /// Reads every remaining event until the stream ends.
    func rest() async -> [String] {
        var read: [String] = []
        while let event = await iterator.next() {
            read.append(event.summary)
            seen.append(event.summary)
        }
        return read
    }
}

extension RestartPolicy {
    /// The default intensity limit with no delay before a restart.
    static let immediate = RestartPolicy(initialDelay: .zero, maximumDelay: .zero)
}
