/// The Digest challenge last answered for each origin, with its client nonce and nonce count:
/// a later request to that origin answers it at once, with the next count, and so costs no 401
/// (RFC 7616 §3.4: `nc` counts the requests sent with one nonce). Copies share the table.
struct DigestSessions: Sendable {
    /// One origin's challenge and what its answers have used.
    struct Session: Sendable {
        let challenge: DigestChallenge
        /// One client nonce per server nonce: RFC 7616 §3.4.2 requires it of `-sess`, whose A1
        /// hashes it; the other algorithms tell their answers apart by `nc`.
        let clientNonce: String
        /// The count of the last answer sent.
        var count: Int
    }

    /// The answer of one request: the challenge, its nonce count, the client nonce.
    typealias Answer = (challenge: DigestChallenge, count: Int, clientNonce: String)

    private let table = Locked<[HTTPOrigin: Session]>([:])

    /// Answers `challenge` for `origin` from now on, and returns the first answer: count 1 and
    /// a new client nonce, or the next count when `challenge` repeats the nonce in use.
    func adopt(_ challenge: DigestChallenge, for origin: HTTPOrigin, clientNonce: String) -> Answer {
        table.withLock { table in
            if var session = table[origin], session.challenge.nonce == challenge.nonce {
                session.count += 1
                table[origin] = Session(challenge: challenge, clientNonce: session.clientNonce, count: session.count)
                return (challenge, session.count, session.clientNonce)
            }
            table[origin] = Session(challenge: challenge, clientNonce: clientNonce, count: 1)
            return (challenge, 1, clientNonce)
        }
    }

    /// The next answer to `origin`'s last challenge, or `nil` when it has none.
    func next(for origin: HTTPOrigin) -> Answer? {
        table.withLock { table in
            guard var session = table[origin] else { return nil }
            session.count += 1
            table[origin] = session
            return (session.challenge, session.count, session.clientNonce)
        }
    }

    /// Forgets `origin`'s challenge if its nonce is still `nonce`: the server refused an answer
    /// to it, so later requests wait to be challenged again.
    func forget(_ origin: HTTPOrigin, nonce: String) {
        table.withLock { table in
            if table[origin]?.challenge.nonce == nonce { table[origin] = nil }
        }
    }
}
