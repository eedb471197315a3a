extension ConnectivityEvent: CustomStringConvertible {
    /// The new state and who settled it: `offline (link)`.
    public var description: String { "\(state.rawValue) (\(source.rawValue))" }
}
