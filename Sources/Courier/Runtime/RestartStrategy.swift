/// Which children a supervisor restarts when one of them exits.
package enum RestartStrategy: Sendable, Equatable {
    /// Restart only the child that exited.
    case oneForOne
    /// Restart the child that exited and every child started after it (they depend on it).
    case restForOne
}
