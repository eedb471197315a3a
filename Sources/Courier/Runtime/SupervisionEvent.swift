/// What happened to a supervisor's children, as an observable stream
/// (``APIClient/supervisionEvents(buffer:)``).
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
