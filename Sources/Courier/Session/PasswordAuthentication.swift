/// The password side of an ``AuthInterceptor``: Basic sent with every request that needs
/// credentials, or Digest answered when challenged and then answered again at once
/// (``DigestSessions``). Either is refused over plain HTTP to a host that is not loopback,
/// unless allowed.
struct PasswordAuthentication: Sendable {
    enum Scheme: Sendable {
        case basic
        case digest
    }

    let credential: PasswordCredential
    let scheme: Scheme
    let allowsInsecureHTTP: Bool
    /// The Basic `Authorization` value, worked out once, or why there is none.
    private let basic: Result<String, NetworkError>
    /// The Digest challenges answered, per origin.
    let sessions = DigestSessions()

    init(credential: PasswordCredential, scheme: Scheme, allowsInsecureHTTP: Bool) {
        self.credential = credential
        self.scheme = scheme
        self.allowsInsecureHTTP = allowsInsecureHTTP
        basic = Result { () throws(NetworkError) in try credential.basicAuthorization() }
    }

    /// Adds the credential to `request`: Basic, or Digest's answer to the origin's last
    /// challenge, if any.
    /// - Throws: ``NetworkError/securityError(_:)`` for plain HTTP to a host that is not
    ///   loopback, unless ``allowsInsecureHTTP``; ``NetworkError/invalidRequest(_:)`` for a
    ///   credential Basic cannot carry.
    func authorize(_ request: inout HTTPRequest) throws(NetworkError) {
        guard let origin = request.origin else { return }
        try checkTransport(origin)
        switch scheme {
        case .basic:
            request.headers.replaceOrAdd(name: "Authorization", value: try basic.get())
        case .digest:
            if let answer = sessions.next(for: origin) { authorize(&request, answer) }
        }
    }

    /// Answers `challenge`, which `request`'s origin sent: adopts it for the origin and adds
    /// the answer, with a client nonce drawn from `random`.
    func answer(_ challenge: DigestChallenge, on request: inout HTTPRequest, random: any RandomSource) throws(NetworkError) {
        guard let origin = request.origin else { return }
        try checkTransport(origin)
        let clientNonce = Self.hex(random.next()) + Self.hex(random.next())
        authorize(&request, sessions.adopt(challenge, for: origin, clientNonce: clientNonce))
    }

    private func authorize(_ request: inout HTTPRequest, _ answer: DigestSessions.Answer) {
        let value = answer.challenge.authorization(
            for: credential, method: request.method.rawValue, uri: DigestChallenge.requestTarget(of: request.url),
            nonceCount: answer.count, clientNonce: answer.clientNonce)
        request.headers.replaceOrAdd(name: "Authorization", value: value)
    }

    private func checkTransport(_ origin: HTTPOrigin) throws(NetworkError) {
        guard origin.scheme == "http", !allowsInsecureHTTP, !SecurityGuard.isLoopback(origin.host) else { return }
        throw .securityError(
            "refused to send a password over plain HTTP to \(origin.host): use HTTPS, or allowsInsecureHTTP to accept the risk")
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
