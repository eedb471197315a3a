/// What a reconnecting socket needs of the connectivity monitor (which sits above WebSocket/):
/// while it says offline, no attempt is made and none is counted.
struct WebSocketConnectivity: Sendable {
    /// Whether the monitor says offline now.
    let isOffline: @Sendable () -> Bool
    /// Returns at once unless the monitor says offline; else once it says otherwise (or the
    /// task is cancelled).
    let untilOnline: @Sendable () async -> Void

    /// A client without a monitor: never offline.
    static let none = WebSocketConnectivity(isOffline: { false }, untilOnline: {})
}
