import Foundation

/// Certificate pins: for each host pattern, the SHA-256 digests of the public keys
/// (SubjectPublicKeyInfo) that host's certificate chain must contain, as OkHttp's
/// `CertificatePinner` has them.
///
/// A connection to a pinned host succeeds only if the chain passes the usual verification
/// *and* one of its certificates (leaf, intermediate or root) has a pinned key; otherwise the
/// request fails with ``NetworkError/securityError(_:)`` naming the host and the keys seen, and
/// no byte of the request is sent. Pin a backup key too (the next key you will rotate to), or a
/// key rotation locks your clients out.
///
/// Patterns: `api.example.com` (that host only), `*.example.com` (exactly one label before
/// `example.com`: `a.example.com`, not `example.com` nor `a.b.example.com`), `**.example.com`
/// (any number of labels, none included). Hosts compare ignoring case. When several patterns
/// match, a key of any of them will do.
///
/// ```swift
/// let pinner = try CertificatePinner([
///     "api.example.com": ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",   // current key
///                         "sha256/BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB="],  // backup key
/// ])
/// ```
/// Get a server's pin with
/// `openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`.
public struct CertificatePinner: Sendable, Equatable {
    /// One pattern and its pins.
    struct Entry: Sendable, Equatable {
        /// The pattern's labels, lowercased, without its `*.` or `**.` prefix.
        let suffix: String
        let wildcard: Wildcard
        /// 32-byte SHA-256 digests.
        let pins: [Data]
    }

    enum Wildcard: Sendable, Equatable {
        case none, oneLabel, anyLabels
    }

    let entries: [Entry]

    /// No pins: every host is checked by certificate verification alone.
    public init() {
        entries = []
    }

    /// Pins for each host pattern. A pin is `sha256/` followed by the base64 of a 32-byte
    /// SHA-256 digest (`sha256//…`, libcurl's spelling, is taken too). Throws
    /// ``NetworkError/invalidRequest(_:)`` for a malformed pattern or pin, or a pattern with no
    /// pins.
    public init(_ pins: [String: [String]]) throws(NetworkError) {
        var entries: [Entry] = []
        for pattern in pins.keys.sorted() {
            entries.append(try Self.entry(pattern, pins[pattern] ?? []))
        }
        self.entries = entries
    }

    /// Whether no host is pinned.
    public var isEmpty: Bool { entries.isEmpty }

    /// The pins that apply to `host` (the union of every matching pattern's), empty when the
    /// host is not pinned.
    func pins(for host: String) -> [Data] {
        guard !entries.isEmpty else { return [] }
        // `api.example.com.` (fully qualified) is the same host as `api.example.com`.
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        var pins: [Data] = []
        for entry in entries where Self.matches(host, entry) {
            for pin in entry.pins where !pins.contains(pin) { pins.append(pin) }
        }
        return pins
    }

    /// A digest in the form pins are written in (`sha256/` + base64), for messages.
    static func describe(_ digest: Data) -> String {
        "sha256/" + digest.base64EncodedString()
    }

    /// The DER of the SubjectPublicKeyInfo (what a pin is the digest of) inside a certificate's
    /// DER, or nil if it is not an X.509 certificate: Certificate ::= SEQUENCE { tbsCertificate
    /// SEQUENCE { [0] version OPTIONAL, serialNumber, signature, issuer, validity, subject,
    /// subjectPublicKeyInfo, … }, … } (RFC 5280 §4.1).
    static func subjectPublicKeyInfo(ofCertificate der: Data) -> Data? {
        let bytes = [UInt8](der)
        guard let certificate = element(in: bytes, at: 0), certificate.tag == 0x30,
              let tbs = element(in: bytes, at: certificate.content.lowerBound), tbs.tag == 0x30 else { return nil }
        var index = tbs.content.lowerBound
        var position = 0
        while index < tbs.content.upperBound, let field = element(in: bytes, at: index) {
            if position == 0 && field.tag == 0xA0 {
                index = field.content.upperBound   // the version: not counted
                continue
            }
            if position == 5 { return field.tag == 0x30 ? Data(bytes[index..<field.content.upperBound]) : nil }
            position += 1
            index = field.content.upperBound
        }
        return nil
    }

    /// The DER element starting at `start`: its tag and the range of its content.
    private static func element(in bytes: [UInt8], at start: Int) -> (tag: UInt8, content: Range<Int>)? {
        guard start + 2 <= bytes.count else { return nil }
        var index = start + 1
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count > 0, count <= 4, index + count <= bytes.count else { return nil }
            length = bytes[index..<(index + count)].reduce(0) { $0 << 8 | Int($1) }
            index += count
        }
        guard index + length <= bytes.count else { return nil }
        return (bytes[start], index..<(index + length))
    }

    private static func matches(_ host: String, _ entry: Entry) -> Bool {
        switch entry.wildcard {
        case .none:
            return host == entry.suffix
        case .oneLabel:
            guard host.hasSuffix("." + entry.suffix) else { return false }
            let label = host.dropLast(entry.suffix.count + 1)
            return !label.isEmpty && !label.contains(".")
        case .anyLabels:
            return host == entry.suffix || host.hasSuffix("." + entry.suffix)
        }
    }

    private static func entry(_ pattern: String, _ pins: [String]) throws(NetworkError) -> Entry {
        var suffix = Substring(pattern.lowercased())
        var wildcard = Wildcard.none
        if suffix.hasPrefix("**.") {
            wildcard = .anyLabels
            suffix = suffix.dropFirst(3)
        } else if suffix.hasPrefix("*.") {
            wildcard = .oneLabel
            suffix = suffix.dropFirst(2)
        }
        let labels = suffix.split(separator: ".", omittingEmptySubsequences: false)
        let labelCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-_")
        guard !suffix.isEmpty, labels.allSatisfy({ !$0.isEmpty && $0.allSatisfy(labelCharacters.contains) }) else {
            throw .invalidRequest("certificate pin pattern \(HTTPSyntax.quotedForMessage(pattern)) is not a host name, *.host or **.host")
        }
        guard !pins.isEmpty else {
            throw .invalidRequest("certificate pin pattern \(HTTPSyntax.quotedForMessage(pattern)) has no pins")
        }
        var digests: [Data] = []
        for pin in pins {
            guard pin.hasPrefix("sha256/") else {
                throw .invalidRequest("certificate pin \(HTTPSyntax.quotedForMessage(pin)) does not start with sha256/")
            }
            // `sha256//…` may be libcurl's spelling or OkHttp's of a digest whose base64 starts
            // with `/`: whichever reading is 32 bytes is the pin.
            let encoded = pin.dropFirst(7)
            guard let digest = [encoded, encoded.hasPrefix("/") ? encoded.dropFirst() : nil]
                .compactMap({ $0.flatMap { Data(base64Encoded: String($0)) } })
                .first(where: { $0.count == 32 }) else {
                throw .invalidRequest("certificate pin \(HTTPSyntax.quotedForMessage(pin)) is not the base64 of a 32-byte SHA-256 digest")
            }
            digests.append(digest)
        }
        return Entry(suffix: String(suffix), wildcard: wildcard, pins: digests)
    }
}
