import Foundation

/// A Digest algorithm Courier answers (RFC 7616 §3.3): MD5 and SHA-256, and their `-sess`
/// variants, whose A1 also hashes the server's and the client's nonces.
enum DigestAlgorithm: String, Sendable, CaseIterable {
    case md5 = "MD5"
    case md5Session = "MD5-sess"
    case sha256 = "SHA-256"
    case sha256Session = "SHA-256-sess"

    /// The algorithm a challenge names, compared ignoring case; `nil` for one Courier does not
    /// implement (`SHA-512-256`, anything unknown).
    init?(named name: String) {
        guard let algorithm = Self.allCases.first(where: { HTTPSyntax.equalsIgnoringASCIICase($0.rawValue, name) }) else { return nil }
        self = algorithm
    }

    /// Whether A1 includes the nonces (`-sess`).
    var isSession: Bool { self == .md5Session || self == .sha256Session }

    /// The digest of `text`'s UTF-8 bytes, in lower-case hex.
    func hex(_ text: String) -> String {
        switch self {
        case .md5, .md5Session: MD5Digest.hex(of: Data(text.utf8))
        case .sha256, .sha256Session: SHA256Digest.hex(of: Data(text.utf8))
        }
    }
}
