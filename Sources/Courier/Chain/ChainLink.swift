/// One step in a client's chain, and whether it is the user's. Courier's own steps keep the
/// chain's contract by construction (the retry step proceeds once per attempt, the redirect step
/// once per hop, the rest once); the user's are checked at run time.
struct ChainLink: Sendable {
    let step: any Interceptor
    let isUsers: Bool
}
