/// Where a connectivity observation came from.
public enum ConnectivitySource: String, Sendable, Equatable {
    /// The active probe of the health URL.
    case probe
    /// The operating system's link state (netlink on Linux, `NWPathMonitor` on Apple platforms).
    case link
    /// Outcomes of the client's own requests (a connection failure, a response).
    case requests
    /// The app (``ClientConnectivity/report(_:)``).
    case manual
}
