extension SupervisionEvent: CustomStringConvertible {
    /// What happened to which child, in a line, a failure with its error: `Cache failed: …`.
    public var description: String {
        switch self {
        case .started(let child): "\(child) started"
        case .failed(let child, let error): "\(child) failed: \(error)"
        case .exited(let child): "\(child) exited"
        case .restarted(let child, let count): "\(child) restarted (\(count == 1 ? "1 restart" : "\(count) restarts") so far)"
        case .stopped(let child): "\(child) stopped"
        case .gaveUp(let supervisor, let child): "\(supervisor) gave up after \(child) failed too often"
        case .shutDown(let supervisor): "\(supervisor) shut down"
        }
    }
}
