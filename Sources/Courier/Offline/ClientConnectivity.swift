import Foundation

/// The connectivity monitor's calls: `client.connectivity`. Without
/// ``APIClient/Configuration/connectivity`` or ``APIClient/Configuration/offline`` there is no
/// monitor: the state stays ``ConnectivityState/unknown`` and reports are ignored.
public struct ClientConnectivity: Sendable {
    let client: APIClient

    /// The state the monitor last published. Read without a message.
    public var state: ConnectivityState {
        client.components.offline?.connectivity.value ?? .unknown
    }

    /// Tells the monitor what the app knows (its own signal, or a test's): debounced like any
    /// other source.
    public func report(_ state: ConnectivityState) {
        try? client.components.offline?.monitor.send(.observe(state, .manual))
    }

    /// Every debounced change from now on (the seed of an "offline" banner); a subscriber that
    /// falls behind keeps the newest `buffer` events.
    public func events(buffer: Int = APIClient.eventBuffer) -> AsyncStream<ConnectivityEvent> {
        client.components.offline?.connectivityEvents.subscribe(bufferingPolicy: .bufferingNewest(buffer)) ?? AsyncStream { $0.finish() }
    }
}
