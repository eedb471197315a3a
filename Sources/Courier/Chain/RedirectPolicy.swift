/// Which redirects the client follows. Courier follows redirects itself, the same way over every
/// transport (transports never follow them): see `RedirectRule` for how each hop's request is
/// built, and what is refused.
public struct RedirectPolicy: Sendable {
    /// The most hops followed for one attempt; one more fails with
    /// ``NetworkError/tooManyRedirects(limit:)``. Default 20.
    public var maxHops: Int
    /// Whether to follow at all; when `false`, a 3xx is returned as the response.
    let follows: Bool
    /// Decides each hop that the rules allow; `nil` follows them all.
    let decide: (@Sendable (_ response: HTTPResponse, _ next: HTTPRequest) -> Bool)?

    /// Follow every hop the rules allow, up to `maxHops` (default 20).
    public static func follow(maxHops: Int = 20) -> RedirectPolicy {
        RedirectPolicy(maxHops: maxHops, follows: true, decide: nil)
    }

    /// Follow redirects, up to 20 hops (the default).
    public static let follow = RedirectPolicy.follow()

    /// Never follow: a 3xx is returned as the response (``APIClient/data(for:options:)``
    /// returns it; ``APIClient/send(_:)`` throws for it).
    public static let doNotFollow = RedirectPolicy(maxHops: 0, follows: false, decide: nil)

    /// Ask `decide` before each hop that the rules allow: it sees the 3xx response and the
    /// request Courier would send next, and returns whether to send it (`false` returns the 3xx
    /// as the response).
    public static func custom(
        maxHops: Int = 20, _ decide: @escaping @Sendable (_ response: HTTPResponse, _ next: HTTPRequest) -> Bool
    ) -> RedirectPolicy {
        RedirectPolicy(maxHops: maxHops, follows: true, decide: decide)
    }

    private init(maxHops: Int, follows: Bool, decide: (@Sendable (HTTPResponse, HTTPRequest) -> Bool)?) {
        self.maxHops = max(0, maxHops)
        self.follows = follows
        self.decide = decide
    }
}
