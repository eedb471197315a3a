/// Whether the client can reach the network, as the connectivity monitor concludes from its
/// sources.
public enum ConnectivityState: String, Sendable, Equatable {
    /// No source has said anything yet.
    case unknown
    /// Reachable: requests may go out.
    case online
    /// Not reachable: writes that allow it wait in the offline queue.
    case offline
}
