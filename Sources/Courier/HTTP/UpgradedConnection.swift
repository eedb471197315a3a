/// The connection a `101 Switching Protocols` hands over (an open WebSocket), carried on the
/// response from the transport to the call that asked for the upgrade.
protocol UpgradedConnection: AnyObject, Sendable {
    /// Ends the connection now: `error` for anyone who reads it (a step dropped the response).
    func abort(_ error: NetworkError)
}
