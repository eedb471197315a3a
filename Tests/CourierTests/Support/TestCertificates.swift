import Foundation

/// A small PKI made at test time with the `openssl` command line tool, in a temporary
/// directory: a root CA, an intermediate CA, a server leaf signed by the intermediate, a client
/// certificate signed by the root (mutual TLS), and an unrelated self-signed root. EC P-256
/// keys, valid for two days. Made once per test process (``shared``) and used read-only.
///
/// The leaf's names are `localhost`, `127.0.0.1` and names under `.localhost`, which libcurl
/// (7.85 and later) resolves to loopback by itself, without `/etc/hosts`: ``hosts``.
struct TestCertificates: Sendable {
    /// The directory holding every file below.
    let directory: String
    /// The root CA (PEM): what a client adds as `extraRootsFile` to trust the server.
    let rootFile: String
    /// The server's chain as it sends it: leaf, then intermediate (PEM).
    let serverChainFile: String
    /// The leaf's private key (PEM).
    let serverKeyFile: String
    /// A self-signed root that signed nothing the server sends (PEM).
    let unrelatedRootFile: String
    /// The client certificate (signed by the root) and its key, for mutual TLS (PEM).
    let clientCertificateFile: String
    let clientKeyFile: String

    /// Pins (`sha256/` + base64 of the SHA-256 of the SubjectPublicKeyInfo) of each key.
    let leafPin: String
    let intermediatePin: String
    let rootPin: String
    let unrelatedRootPin: String

    /// The names the leaf is valid for that libcurl resolves to 127.0.0.1 (besides `localhost`
    /// and `127.0.0.1`): one, two and three labels under `x.localhost`'s parent, and another.
    static let hosts = ["x.localhost", "a.x.localhost", "b.a.x.localhost", "other.localhost"]

    /// The process's certificates, made on first use (about a second of `openssl` runs), and
    /// removed when the process exits.
    static let shared: Result<TestCertificates, TestCertificatesError> = {
        let made = Result { () throws(TestCertificatesError) in try TestCertificates.make() }
        atexit {
            if case .success(let certificates) = TestCertificates.shared {
                try? FileManager.default.removeItem(atPath: certificates.directory)
            }
        }
        return made
    }()

    /// ``shared``, or its error thrown; skips the test when there is no `openssl` to make them.
    static func load() throws -> TestCertificates {
        _ = try TestTool.require(executable, install: "Debian: apt-get install openssl, or set OPENSSL to its path")
        return try shared.get()
    }

    /// `$OPENSSL`, or `openssl` on `PATH`.
    private static var executable: String {
        ProcessInfo.processInfo.environment["OPENSSL"] ?? "openssl"
    }

    /// Makes a fresh set in a new temporary directory.
    static func make() throws(TestCertificatesError) -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("courier-pki-\(UUID().uuidString)").path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .failed("cannot create \(directory): \(error)")
        }
        func path(_ name: String) -> String { directory + "/" + name }

        let names = ["localhost"] + hosts
        let config = """
            [req]
            distinguished_name = dn
            prompt = no
            [dn]
            CN = unused
            [root]
            basicConstraints = critical, CA:TRUE
            keyUsage = critical, keyCertSign, cRLSign
            subjectKeyIdentifier = hash
            [intermediate]
            basicConstraints = critical, CA:TRUE, pathlen:0
            keyUsage = critical, keyCertSign, cRLSign
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid
            [leaf]
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature
            extendedKeyUsage = serverAuth
            subjectAltName = \((names.map { "DNS:\($0)" } + ["IP:127.0.0.1"]).joined(separator: ", "))
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid
            [client]
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature
            extendedKeyUsage = clientAuth
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid

            """
        do {
            try config.write(toFile: path("pki.cnf"), atomically: true, encoding: .utf8)
        } catch {
            throw .failed("cannot write pki.cnf: \(error)")
        }

        for name in ["root", "intermediate", "leaf", "client", "unrelated"] {
            try openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path("\(name).key"))
        }
        // Self-signed roots.
        for (name, subject) in [("root", "/CN=Courier Test Root CA"), ("unrelated", "/CN=Courier Unrelated Root CA")] {
            try openssl(
                "req", "-new", "-x509", "-config", path("pki.cnf"), "-key", path("\(name).key"), "-subj", subject,
                "-extensions", "root", "-days", "2", "-out", path("\(name).pem"))
        }
        // Signed certificates: name, subject, issuer, extensions, serial.
        let signed = [
            ("intermediate", "/CN=Courier Test Intermediate CA", "root", "intermediate", "2"),
            ("leaf", "/CN=localhost", "intermediate", "leaf", "3"),
            ("client", "/CN=courier-test-client", "root", "client", "4"),
        ]
        for (name, subject, issuer, extensions, serial) in signed {
            try openssl(
                "req", "-new", "-config", path("pki.cnf"), "-key", path("\(name).key"), "-subj", subject,
                "-out", path("\(name).csr"))
            try openssl(
                "x509", "-req", "-in", path("\(name).csr"), "-CA", path("\(issuer).pem"), "-CAkey", path("\(issuer).key"),
                "-set_serial", serial, "-extfile", path("pki.cnf"), "-extensions", extensions, "-days", "2",
                "-out", path("\(name).pem"))
        }
        let chain = try read(path("leaf.pem")) + read(path("intermediate.pem"))
        do {
            try chain.write(to: URL(fileURLWithPath: path("server-chain.pem")))
        } catch {
            throw .failed("cannot write server-chain.pem: \(error)")
        }

        func pin(_ name: String) throws(TestCertificatesError) -> String {
            try openssl("pkey", "-in", path("\(name).key"), "-pubout", "-outform", "DER", "-out", path("\(name).spki"))
            try openssl("dgst", "-sha256", "-binary", "-out", path("\(name).spki.sha256"), path("\(name).spki"))
            let digest = try read(path("\(name).spki.sha256"))
            guard digest.count == 32 else { throw .failed("the SHA-256 of \(name).spki is \(digest.count) bytes") }
            return "sha256/" + digest.base64EncodedString()
        }

        return TestCertificates(
            directory: directory,
            rootFile: path("root.pem"),
            serverChainFile: path("server-chain.pem"),
            serverKeyFile: path("leaf.key"),
            unrelatedRootFile: path("unrelated.pem"),
            clientCertificateFile: path("client.pem"),
            clientKeyFile: path("client.key"),
            leafPin: try pin("leaf"),
            intermediatePin: try pin("intermediate"),
            rootPin: try pin("root"),
            unrelatedRootPin: try pin("unrelated"))
    }

    /// `openssl` (or `$OPENSSL`), which ends before this returns.
    private static func openssl(_ arguments: String...) throws(TestCertificatesError) {
        guard let executable = TestTool.find(executable) else { throw .failed("\(executable) is not on PATH") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        // Its errors go to a file, not a pipe: a child another test starts meanwhile can inherit
        // a pipe's write end, and a read to its end would then wait for that child, on a
        // thread of the cooperative pool.
        let errorsPath = FileManager.default.temporaryDirectory.appendingPathComponent("openssl-\(UUID().uuidString).err").path
        guard FileManager.default.createFile(atPath: errorsPath, contents: nil), let errors = FileHandle(forWritingAtPath: errorsPath) else {
            throw .failed("cannot make \(errorsPath)")
        }
        defer { try? FileManager.default.removeItem(atPath: errorsPath) }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        do {
            try process.run()
        } catch {
            try? errors.close()
            throw .failed("cannot run \(executable): \(error)")
        }
        process.waitUntilExit()
        try? errors.close()
        let output = FileManager.default.contents(atPath: errorsPath) ?? Data()
        guard process.terminationStatus == 0 else {
            throw .failed(
                "openssl \(arguments.joined(separator: " ")) exited with \(process.terminationStatus): "
                    + String(decoding: output, as: UTF8.self))
        }
    }

    private static func read(_ path: String) throws(TestCertificatesError) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else { throw .failed("cannot read \(path)") }
        return data
    }
}

/// Why ``TestCertificates`` could not be made.
enum TestCertificatesError: Error, CustomStringConvertible {
    case failed(String)

    var description: String {
        switch self {
        case .failed(let reason): "TestCertificates: \(reason)"
        }
    }
}
