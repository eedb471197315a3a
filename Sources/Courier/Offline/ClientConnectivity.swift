import Foundation

/// The connectivity monitor's calls: `client.connectivity`. The client has a monitor when its
/// configuration has ``APIClient/Configuration/connectivity`` or ``APIClient/Configuration/offline``.
///
/// Without either every call (``state`` included) throws ``NetworkError/componentUnavailable(_:)``
/// named `"connectivity"`, and every event stream finishes at once (the rule of every optional
/// group; see ``APIClient``).
public struct ClientConnectivity: Sendable {
    let offline: OfflineComponents?

    /// The state the monitor last published (``ConnectivityState/unknown`` until its first
    /// conclusion). Read without a message.
    public var state: ConnectivityState {
        get throws(NetworkError) { try components().connectivity.value }
    }

    /// Tells the monitor what the app knows (its own signal, or a test's): debounced like any
    /// other source.
    /// - Throws: ``NetworkError/componentUnavailable(_:)`` without a monitor, or once the client
    ///   has shut down.
    public func report(_ state: ConnectivityState) throws(NetworkError) {
        do {
            try components().monitor.send(.observe(state, .manual))
        } catch {
            throw NetworkError(answer: error)
        }
    }

    /// Every debounced change from now on (the seed of an "offline" banner); a subscriber that
    /// falls behind keeps the newest `buffer` events.
    public func events(buffer: Int = ClientGroup.eventBuffer) -> AsyncStream<ConnectivityEvent> {
        guard let offline else { return ClientGroup.finished() }
        return offline.connectivityEvents.subscribe(bufferingPolicy: .bufferingNewest(buffer))
    }

    private func components() throws(NetworkError) -> OfflineComponents {
        guard let offline else { throw ClientGroup.connectivity.unavailable }
        return offline
    }
}
