import Foundation

/// A Digest challenge Courier can answer (RFC 7616 §3.3), and the answer's computation
/// (§3.4): pure, so the RFC's examples test it.
struct DigestChallenge: Sendable, Equatable {
    let realm: String
    let nonce: String
    let opaque: String?
    let algorithm: DigestAlgorithm
    /// Whether the answer carries `qop=auth` (the challenge offers it); `false` answers in
    /// RFC 2069's form, for a challenge without `qop`.
    let protectsWithQOP: Bool
    /// The server refused the previous answer only because its nonce expired (`stale=true`).
    let stale: Bool

    init(realm: String, nonce: String, opaque: String? = nil, algorithm: DigestAlgorithm = .md5, protectsWithQOP: Bool = true, stale: Bool = false) {
        self.realm = realm
        self.nonce = nonce
        self.opaque = opaque
        self.algorithm = algorithm
        self.protectsWithQOP = protectsWithQOP
        self.stale = stale
    }

    /// `challenge` as a Digest challenge; `nil` when it is another scheme or asks for what
    /// Courier does not implement (an algorithm such as `SHA-512-256`, only `qop=auth-int`, or
    /// a `-sess` algorithm without `qop`, which leaves no client nonce to hash).
    /// - Throws: ``NetworkError/invalidResponse(_:)`` for a Digest challenge without `realm` or
    ///   `nonce`.
    init?(_ challenge: AuthenticationChallenge) throws(NetworkError) {
        guard challenge.isScheme("Digest") else { return nil }
        guard let realm = challenge["realm"] else { throw .invalidResponse("malformed Digest challenge: no realm") }
        guard let nonce = challenge["nonce"], !nonce.isEmpty else { throw .invalidResponse("malformed Digest challenge: no nonce") }
        guard let algorithm = DigestAlgorithm(named: challenge["algorithm"] ?? "MD5") else { return nil }
        let protectsWithQOP: Bool
        if let qop = challenge["qop"] {
            let offered = qop.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard offered.contains(where: { HTTPSyntax.equalsIgnoringASCIICase($0, "auth") }) else { return nil }
            protectsWithQOP = true
        } else {
            guard !algorithm.isSession else { return nil }
            protectsWithQOP = false
        }
        let stale = challenge["stale"].map { HTTPSyntax.equalsIgnoringASCIICase($0, "true") } ?? false
        self.init(realm: realm, nonce: nonce, opaque: challenge["opaque"], algorithm: algorithm, protectsWithQOP: protectsWithQOP, stale: stale)
    }

    /// The first Digest challenge of `headers` that Courier can answer, in the server's order
    /// (RFC 7616 §3.7: the server lists its preferred first); `nil` if none, and then the 401
    /// is the answer. A malformed field or Digest challenge is skipped: one bad challenge must
    /// not replace the server's 401 with an error.
    static func first(in headers: HTTPHeaders) -> DigestChallenge? {
        for challenge in AuthenticationChallenge.challenges(in: headers) {
            if let digest = try? DigestChallenge(challenge) { return digest }
        }
        return nil
    }

    /// The `response` value (§3.4.1): the digest proving the password, for `method` and `uri`
    /// (the request target as sent), lower-case hex.
    func response(
        user: String, password: String, method: String, uri: String, nonceCount: Int, clientNonce: String
    ) -> String {
        var secret = algorithm.hex("\(user):\(realm):\(password)")
        if algorithm.isSession { secret = algorithm.hex("\(secret):\(nonce):\(clientNonce)") }
        let request = algorithm.hex("\(method):\(uri)")
        guard protectsWithQOP else { return algorithm.hex("\(secret):\(nonce):\(request)") }
        return algorithm.hex("\(secret):\(nonce):\(Self.formatted(nonceCount)):\(clientNonce):auth:\(request)")
    }

    /// The `Authorization` value answering this challenge (§3.4): `Digest username="…", …`.
    /// A user name that is not printable ASCII goes as `username*` (RFC 8187's UTF-8 form).
    func authorization(
        for credential: PasswordCredential, method: String, uri: String, nonceCount: Int, clientNonce: String
    ) -> String {
        let response = response(
            user: credential.user, password: credential.password, method: method, uri: uri, nonceCount: nonceCount, clientNonce: clientNonce)
        var fields: [String] = []
        if credential.user.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            fields.append("username=" + Self.quoted(credential.user))
        } else {
            fields.append("username*=UTF-8''" + Self.percentEncoded(credential.user))
        }
        fields += ["realm=" + Self.quoted(realm), "uri=" + Self.quoted(uri), "algorithm=" + algorithm.rawValue, "nonce=" + Self.quoted(nonce)]
        if protectsWithQOP {
            fields += ["nc=" + Self.formatted(nonceCount), "cnonce=" + Self.quoted(clientNonce), "qop=auth"]
        }
        fields.append("response=" + Self.quoted(response))
        if let opaque { fields.append("opaque=" + Self.quoted(opaque)) }
        return "Digest " + fields.joined(separator: ", ")
    }

    /// The request target of `url` as the request line carries it: its path (`/` when empty)
    /// and query, as written, without the fragment.
    static func requestTarget(of url: URL) -> String {
        let text = url.absoluteString
        var rest = Substring(text)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        guard let start = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) else { return "/" }
        var target = rest[start...]
        if let fragment = target.firstIndex(of: "#") { target = target[..<fragment] }
        return target.first == "/" ? String(target) : "/" + target
    }

    /// `nc`: eight lower-case hex digits.
    static func formatted(_ nonceCount: Int) -> String {
        let hex = String(UInt32(truncatingIfNeeded: nonceCount), radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// `text` as an RFC 9110 quoted string.
    private static func quoted(_ text: String) -> String {
        var quoted = "\""
        for character in text {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }

    /// `text`'s UTF-8 bytes, every one but RFC 8187's `attr-char` percent-encoded.
    private static func percentEncoded(_ text: String) -> String {
        let plain = Set("!#$&+-.^_`|~".utf8)
        var encoded = ""
        for byte in text.utf8 {
            let isAlphanumeric = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            if isAlphanumeric || plain.contains(byte) {
                encoded.append(Character(Unicode.Scalar(byte)))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                encoded += (hex.count == 1 ? "%0" : "%") + hex
            }
        }
        return encoded
    }
}
