/// How a supervisor runs one child: its name, restart type, shutdown deadline, and how to
/// run, stop and close one instance of it.
package struct ChildSpec: Sendable {
    /// The child's name, used in events and errors.
    package let name: String
    /// When the child is restarted.
    package var restart: RestartType
    /// How long a graceful stop may take before the child's task is cancelled.
    package var shutdownDeadline: Duration

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
    /// no queued message. Stopping it closes the mailbox and lets it drain what is queued;
    /// `closed` runs then too (at shutdown, or when the supervisor gives up), for state outside
    /// the mailbox that waiters rely on.
    ///
    /// `make` gets the instance's ``SupervisedScope``: the tasks it spawns there fail the
    /// instance when they fail, and are cancelled when the instance ends.
    package static func component<C: Component>(
        _ name: String? = nil,
        mailbox: Mailbox<C.Message>,
        restart: RestartType = .permanent,
        shutdownDeadline: Duration = .seconds(5),
        closed: (@Sendable () -> Void)? = nil,
        make: @escaping @Sendable (SupervisedScope) async throws -> C
    ) -> ChildSpec {
        ChildSpec(
            name: name ?? mailbox.name,
            restart: restart,
            shutdownDeadline: shutdownDeadline,
            run: { incarnation in
                // A failed task wakes the loop with this incarnation's stop marker; the loop
                // sees the failure there and throws it.
                let scope = SupervisedScope { mailbox.requestStop(incarnation: incarnation) }
                defer { scope.close() }
                let instance = try await make(scope)
                try await instance.run(mailbox, incarnation: incarnation, scope: scope)
            },
            requestStop: { mailbox.requestStop(incarnation: $0) },
            close: {
                mailbox.close()
                closed?()
            },
            discardQueued: { await mailbox.discardQueued() }
        )
    }

    /// A component child whose instances start no task of their own (see the overload that
    /// hands `make` the instance's scope).
    package static func component<C: Component>(
        _ name: String? = nil,
        mailbox: Mailbox<C.Message>,
        restart: RestartType = .permanent,
        shutdownDeadline: Duration = .seconds(5),
        closed: (@Sendable () -> Void)? = nil,
        make: @escaping @Sendable () async throws -> C
    ) -> ChildSpec {
        component(name, mailbox: mailbox, restart: restart, shutdownDeadline: shutdownDeadline, closed: closed) { _ in
            try await make()
        }
    }

    /// A plain task child (a loop with no mailbox, e.g. a poller). It is stopped by
    /// cancellation, so `body` must return or throw promptly when its task is cancelled.
    package init(
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
