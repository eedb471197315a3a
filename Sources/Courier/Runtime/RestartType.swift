/// When a child is restarted (Erlang/OTP's restart types).
package enum RestartType: Sendable, Equatable {
    /// Always restarted, whether it failed or exited normally.
    case permanent
    /// Restarted only if it failed.
    case transient
    /// Never restarted.
    case temporary
}
