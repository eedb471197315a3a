/// How a supervisor runs one child: its name, restart type, shutdown deadline, and how to
/// run, stop and close one instance of it.
public struct ChildSpec: Sendable {
    /// The child's name, used in events and errors.
    public let name: String
    /// When the child is restarted.
    public var restart: RestartType
    /// How long a graceful stop may take before the child's task is cancelled.
    public var shutdownDeadline: Duration

    /// Runs one instance until it stops; throwing means it failed. The argument is the
    /// instance's incarnation number (1 for the first start).
    let run: @Sendable (_ incarnation: Int) async throws -> Void
    /// Asks the given incarnation to stop without losing queued input, or `nil` to stop by
    /// cancelling its task.
    let requestStop: (@Sendable (_ incarnation: Int) -> Void)?
    /// Ends the child's input for good (shutdown), or `nil` to stop by cancellation.
    let close: (@Sendable () -> Void)?
    /// Drops input still queued after the child stopped for good, answering its askers.
    let discardQueued: (@Sendable () async -> Void)?

    /// A component child: each instance is a fresh actor from `make` (which rebuilds its state
    /// from durable storage where it has any) consuming the same `mailbox`, so a restart loses
    /// no queued message. Stopping it closes the mailbox and lets it drain what is queued.
    public static func component<C: Component>(
        _ name: String? = nil,
        mailbox: Mailbox<C.Message>,
        restart: RestartType = .permanent,
        shutdownDeadline: Duration = .seconds(5),
        make: @escaping @Sendable () async throws -> C
    ) -> ChildSpec {
        ChildSpec(
            name: name ?? mailbox.name,
            restart: restart,
            shutdownDeadline: shutdownDeadline,
            run: { incarnation in
                let instance = try await make()
                try await instance.run(mailbox, incarnation: incarnation)
            },
            requestStop: { mailbox.requestStop(incarnation: $0) },
            close: { mailbox.close() },
            discardQueued: { await mailbox.discardQueued() }
        )
    }

    /// A plain task child (a loop with no mailbox, e.g. a poller). It is stopped by
    /// cancellation, so `body` must return or throw promptly when its task is cancelled.
    public init(
        name: String,
        restart: RestartType = .permanent,
        shutdownDeadline: Duration = .seconds(5),
        body: @escaping @Sendable () async throws -> Void
    ) {
        self.init(
            name: name, restart: restart, shutdownDeadline: shutdownDeadline,
            run: { _ in try await body() }, requestStop: nil, close: nil, discardQueued: nil
        )
    }

    private init(
        name: String, restart: RestartType, shutdownDeadline: Duration,
        run: @escaping @Sendable (Int) async throws -> Void,
        requestStop: (@Sendable (Int) -> Void)?,
        close: (@Sendable () -> Void)?,
        discardQueued: (@Sendable () async -> Void)?
    ) {
        self.name = name
        self.restart = restart
        self.shutdownDeadline = shutdownDeadline
        self.run = run
        self.requestStop = requestStop
        self.close = close
        self.discardQueued = discardQueued
    }
}

/// What happened to a supervisor's children, as an observable stream
/// (``Supervisor/events()``).
public enum SupervisionEvent: Sendable {
    /// The child's first instance was started.
    case started(child: String)
    /// An instance of the child threw `error`: it failed.
    case failed(child: String, error: any Error)
    /// An instance of the child returned on its own.
    case exited(child: String)
    /// A new instance of the child was started; `count` restarts so far.
    case restarted(child: String, count: Int)
    /// The child was stopped and will not be restarted.
    case stopped(child: String)
    /// The intensity limit was exceeded by `child`'s failure: the supervisor stopped every
    /// child and will restart nothing.
    case gaveUp(supervisor: String, child: String)
    /// The supervisor finished shutting down; no more events follow.
    case shutDown(supervisor: String)

    /// A short stable form, e.g. `restarted(cache, 2)`, handy in logs and tests.
    public var summary: String {
        switch self {
        case .started(let child): "started(\(child))"
        case .failed(let child, _): "failed(\(child))"
        case .exited(let child): "exited(\(child))"
        case .restarted(let child, let count): "restarted(\(child), \(count))"
        case .stopped(let child): "stopped(\(child))"
        case .gaveUp(let supervisor, let child): "gaveUp(\(supervisor), \(child))"
        case .shutDown(let supervisor): "shutDown(\(supervisor))"
        }
    }
}
