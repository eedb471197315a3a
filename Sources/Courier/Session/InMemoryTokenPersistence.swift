/// Keeps the tokens in memory only: they survive a restart of the token store component,
/// not of the process. The default.
public final class InMemoryTokenPersistence: TokenPersistence {
    private let saved: Locked<Tokens?>

    /// Starts with `tokens` (default none).
    public init(_ tokens: Tokens? = nil) {
        saved = Locked(tokens)
    }

    /// The tokens held.
    public func load() -> Tokens? { saved.withLock { $0 } }

    /// Holds `tokens`.
    public func save(_ tokens: Tokens) { saved.withLock { $0 = tokens } }

    /// Forgets the tokens.
    public func remove() { saved.withLock { $0 = nil } }
}
