/// A change of the client's connectivity, after debouncing: one event per settled change, not
/// one per flap.
public struct ConnectivityEvent: Sendable, Equatable {
    /// The new state.
    public let state: ConnectivityState
    /// The source whose observation settled it.
    public let source: ConnectivitySource

    /// Creates an event.
    public init(state: ConnectivityState, source: ConnectivitySource) {
        self.state = state
        self.source = source
    }
}
