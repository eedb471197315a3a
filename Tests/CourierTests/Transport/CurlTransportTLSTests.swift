#if os(Linux)
import Foundation
import Testing
@testable import Courier

/// CurlTransport's TLS against a real HTTPS server on loopback (`tls_server.py`) with a chain
/// made for the test (``TestCertificates``): trust, pins checked against the whole verified
/// chain, wildcard patterns on real host names, the minimum version, and mutual TLS.
@Suite struct CurlTransportTLSTests {
    /// What the server answers: the request as it saw it.
    struct Seen: Decodable {
        let method: String
        let path: String
        let bodyBytes: Int
        let client: String?
        let version: String
    }

    /// A transport with no proxy (the environment's must not intercept loopback), trusting
    /// `roots` besides the system's store.
    static func transport(
        roots: String?, pins: [String: [String]] = [:], minimum: CurlTransport.Configuration.TLS.Version = .v1_2,
        client: CurlTransport.Configuration.TLS.ClientCertificate? = nil, directory: Bool = false
    ) throws -> CurlTransport {
        var configuration = CurlTransport.Configuration()
        configuration.proxy = .none
        configuration.tls.trustsCADirectory = directory
        configuration.tls.extraRootsFile = roots
        configuration.tls.pins = try CertificatePinner(pins)
        configuration.tls.minimumVersion = minimum
        configuration.tls.clientCertificate = client
        return CurlTransport(configuration: configuration)
    }

    /// GETs `host` on `server`; returns what the server saw.
    static func get(_ transport: CurlTransport, _ server: TLSTestServer, _ host: String = "localhost") async throws -> Seen {
        let response = try await transport.send(HTTPRequest(url: server.url(host, "/hello")))
        #expect(response.status == 200, "\(host)")
        return try JSONDecoder().decode(Seen.self, from: response.body)
    }

    /// The message of the `securityError` that `body` throws; records an issue for anything else.
    static func securityError(
        _ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> String? {
        do {
            try await body()
            Issue.record("expected a securityError; the request succeeded", sourceLocation: sourceLocation)
        } catch NetworkError.securityError(let message) {
            return message
        } catch {
            Issue.record("expected a securityError, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    /// Waits for the server to have closed a connection whose handshake failed, then checks
    /// that no connection so far received an application byte or answered a request.
    static func expectNoRequestByteReached(_ server: TLSTestServer, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        _ = try await server.waitForEvent("a connection closed after a failed handshake") {
            $0.event == "closed" && $0.handshake == "failed"
        }
        let closed = server.events.filter { $0.event == "closed" }
        #expect(!closed.isEmpty, sourceLocation: sourceLocation)
        for event in closed {
            #expect(event.bytes == 0, "\(event)", sourceLocation: sourceLocation)
            #expect(event.requests == 0, "\(event)", sourceLocation: sourceLocation)
            #expect(event.handshake == "failed", "\(event)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Trust

    /// Each name is a connection of its own: the extra root holds on every one, whether libcurl
    /// keeps the parsed roots (the CA file alone) or parses them each time (with the directory).
    @Test("the test's root as an extra root makes the server trusted under every name of its leaf", arguments: [false, true])
    func extraRootTrusted(directory: Bool) async throws {
        try await withTLSServer { server, certificates in
            let transport = try Self.transport(roots: certificates.rootFile, directory: directory)
            for host in ["localhost", "127.0.0.1"] + TestCertificates.hosts {
                let seen = try await Self.get(transport, server, host)
                #expect(seen.method == "GET")
                #expect(seen.path == "/hello")
                #expect(seen.version == "TLSv1.3")
            }
        }
    }

    @Test("without the extra root the server's chain is untrusted and nothing is sent", arguments: [false, true])
    func withoutExtraRootUntrusted(directory: Bool) async throws {
        try await withTLSServer { server, _ in
            let transport = try Self.transport(roots: nil, directory: directory)
            let message = await Self.securityError {
                _ = try await transport.send(HTTPRequest(method: .post, url: server.url(), body: Data("secret".utf8)))
            }
            #expect(message?.contains("unable to get local issuer certificate") == true, "\(message ?? "")")
            try await Self.expectNoRequestByteReached(server)
        }
    }

    @Test("an unrelated root alone does not make the server trusted")
    func unrelatedRootRefused() async throws {
        try await withTLSServer { server, certificates in
            let transport = try Self.transport(roots: certificates.unrelatedRootFile)
            let message = await Self.securityError { _ = try await Self.get(transport, server) }
            #expect(message?.contains("unable to get local issuer certificate") == true, "\(message ?? "")")
            try await Self.expectNoRequestByteReached(server)
        }
    }

    @Test("a name the leaf does not hold is refused, even with a pin of its key")
    func nameNotInLeafRefused() async throws {
        try await withTLSServer { server, certificates in
            // libcurl resolves every name under .localhost to loopback, this one too: the
            // refusal is the name check's, which the pin check must not replace.
            let transport = try Self.transport(roots: certificates.rootFile, pins: ["z.localhost": [certificates.leafPin]])
            let message = await Self.securityError { _ = try await Self.get(transport, server, "z.localhost") }
            #expect(message?.contains("z.localhost") == true, "\(message ?? "")")
            #expect(message?.contains("certificate pinning") == false, "\(message ?? "")")
            let plain = try Self.transport(roots: certificates.rootFile)
            _ = await Self.securityError { _ = try await Self.get(plain, server, "z.localhost") }
        }
    }

    @Test("an extra roots file that cannot be read fails with a securityError")
    func unreadableExtraRoots() async throws {
        try await withTLSServer { server, certificates in
            let transport = try Self.transport(roots: certificates.directory + "/no-such-roots.pem")
            _ = await Self.securityError { _ = try await Self.get(transport, server) }
        }
    }

    // MARK: Pins

    @Test("a pin of any key of the verified chain matches", arguments: ["leaf", "intermediate", "root"])
    func pinOfAnyChainKeyMatches(_ which: String) async throws {
        try await withTLSServer { server, certificates in
            let pin = ["leaf": certificates.leafPin, "intermediate": certificates.intermediatePin, "root": certificates.rootPin][which]!
            let transport = try Self.transport(roots: certificates.rootFile, pins: ["localhost": [pin]])
            let seen = try await Self.get(transport, server)
            #expect(seen.path == "/hello")
        }
    }

    @Test("pins in libcurl's sha256// spelling match too")
    func libcurlSpellingMatches() async throws {
        try await withTLSServer { server, certificates in
            let pin = "sha256//" + certificates.leafPin.dropFirst("sha256/".count)
            let transport = try Self.transport(roots: certificates.rootFile, pins: ["localhost": [pin]])
            _ = try await Self.get(transport, server)
        }
    }

    @Test("a wrong pin fails naming the host and the chain's keys, before any byte of the request is sent")
    func wrongPinFailsBeforeSending() async throws {
        try await withTLSServer { server, certificates in
            let transport = try Self.transport(roots: certificates.rootFile, pins: ["a.x.localhost": [certificates.unrelatedRootPin]])
            let body = Data(repeating: UInt8(ascii: "b"), count: 10_000)
            let message = await Self.securityError {
                _ = try await transport.send(HTTPRequest(method: .post, url: server.url("a.x.localhost", "/upload"), body: body))
            }
            let text = message ?? ""
            #expect(text.contains("certificate pinning failed for a.x.localhost"), "\(text)")
            for key in [certificates.leafPin, certificates.intermediatePin, certificates.rootPin] {
                #expect(text.contains(key), "\(text) lacks \(key)")
            }
            #expect(!text.contains(certificates.unrelatedRootPin), "\(text)")
            try await Self.expectNoRequestByteReached(server)
        }
    }

    @Test("a wrong pin with a right backup pin succeeds")
    func backupPinSucceeds() async throws {
        try await withTLSServer { server, certificates in
            let transport = try Self.transport(
                roots: certificates.rootFile, pins: ["localhost": [certificates.unrelatedRootPin, certificates.intermediatePin]])
            _ = try await Self.get(transport, server)
        }
    }

    @Test("a pinned host's name matches ignoring case")
    func pinnedHostIgnoresCase() async throws {
        try await withTLSServer { server, certificates in
            let transport = try Self.transport(roots: certificates.rootFile, pins: ["A.X.Localhost": [certificates.unrelatedRootPin]])
            _ = await Self.securityError { _ = try await Self.get(transport, server, "a.x.localhost") }
            _ = await Self.securityError { _ = try await Self.get(transport, server, "A.x.LOCALHOST") }
            _ = try await Self.get(transport, server, "x.localhost")
        }
    }

    @Test("*.x.localhost pins exactly one label before x.localhost")
    func oneLabelWildcard() async throws {
        try await withTLSServer { server, certificates in
            let wrong = try Self.transport(roots: certificates.rootFile, pins: ["*.x.localhost": [certificates.unrelatedRootPin]])
            _ = await Self.securityError { _ = try await Self.get(wrong, server, "a.x.localhost") }
            // Not pinned by the pattern: the parent and two labels down.
            _ = try await Self.get(wrong, server, "x.localhost")
            _ = try await Self.get(wrong, server, "b.a.x.localhost")
            _ = try await Self.get(wrong, server, "other.localhost")

            let right = try Self.transport(roots: certificates.rootFile, pins: ["*.x.localhost": [certificates.leafPin]])
            _ = try await Self.get(right, server, "a.x.localhost")
        }
    }

    @Test("**.x.localhost pins x.localhost and every name under it")
    func anyLabelsWildcard() async throws {
        try await withTLSServer { server, certificates in
            let wrong = try Self.transport(roots: certificates.rootFile, pins: ["**.x.localhost": [certificates.unrelatedRootPin]])
            for host in ["x.localhost", "a.x.localhost", "b.a.x.localhost"] {
                let message = await Self.securityError { _ = try await Self.get(wrong, server, host) }
                #expect(message?.contains("certificate pinning failed for \(host)") == true, "\(message ?? "")")
            }
            _ = try await Self.get(wrong, server, "other.localhost")
            _ = try await Self.get(wrong, server, "localhost")

            let right = try Self.transport(roots: certificates.rootFile, pins: ["**.x.localhost": [certificates.rootPin]])
            for host in ["x.localhost", "a.x.localhost", "b.a.x.localhost"] {
                _ = try await Self.get(right, server, host)
            }
        }
    }

    @Test("the pins of every matching pattern apply together")
    func matchingPatternsUnite() async throws {
        try await withTLSServer { server, certificates in
            let transport = try Self.transport(
                roots: certificates.rootFile,
                pins: ["**.x.localhost": [certificates.unrelatedRootPin], "a.x.localhost": [certificates.leafPin]])
            _ = try await Self.get(transport, server, "a.x.localhost")
            _ = await Self.securityError { _ = try await Self.get(transport, server, "b.a.x.localhost") }
        }
    }

    @Test("after a pin mismatch, the same transport's next failure is reported as itself")
    func pinMismatchDoesNotLeakIntoLaterFailures() async throws {
        try await withTLSServer { server, certificates in
            let transport = try Self.transport(roots: certificates.rootFile, pins: ["localhost": [certificates.unrelatedRootPin]])
            _ = await Self.securityError { _ = try await Self.get(transport, server) }
            // One request at a time: the next one reuses the pooled handle that saw the mismatch,
            // for a plain http URL (no TLS, no pins) on a port nothing listens on.
            let refusing = try RefusingLoopbackPort()
            defer { withExtendedLifetime(refusing) {} }
            let closedPort = refusing.port
            do {
                _ = try await transport.send(HTTPRequest(url: URL(string: "http://127.0.0.1:\(closedPort)/")!))
                Issue.record("a closed port answered")
            } catch NetworkError.cannotConnect(_, closedPort, .refused, _) {
                // As it should be: nothing listens there.
            } catch {
                Issue.record("expected cannotConnect, got \(error)")
            }
        }
    }

    // MARK: Versions and client certificates

    @Test("a TLS 1.3 minimum refuses a server that stops at TLS 1.2: a TLS handshake failure naming the host and port")
    func minimumTLS13RefusesTLS12Server() async throws {
        try await withTLSServer(maximumTLS12: true) { server, certificates in
            let modern = try Self.transport(roots: certificates.rootFile, minimum: .v1_3)
            let error = await #expect(throws: NetworkError.self) { _ = try await Self.get(modern, server) }
            guard case .cannotConnect("localhost", let port, .tlsHandshake, let cause)? = error else {
                Issue.record("expected a TLS handshake failure, got \(String(describing: error))"); return
            }
            #expect(port == server.url("localhost", "/").port)
            #expect((cause as? CurlError)?.code == 35)
            #expect(error?.isRetryable == false)
            #expect(error.map { "\($0)" }?.contains("TLS handshake failed") == true)
            try await Self.expectNoRequestByteReached(server)

            let seen = try await Self.get(try Self.transport(roots: certificates.rootFile), server)
            #expect(seen.version == "TLSv1.2")
        }
    }

    @Test("mutual TLS: the client certificate is presented, and without it no request is answered")
    func mutualTLS() async throws {
        try await withTLSServer(requireClientCertificate: true) { server, certificates in
            let client = CurlTransport.Configuration.TLS.ClientCertificate(
                certificateFile: certificates.clientCertificateFile, keyFile: certificates.clientKeyFile)
            let seen = try await Self.get(try Self.transport(roots: certificates.rootFile, client: client), server)
            #expect(seen.client == "courier-test-client")

            let anonymous = try Self.transport(roots: certificates.rootFile)
            // Under TLS 1.3 the server refuses the missing certificate after the client's side of
            // the handshake is done, so the client learns of it when sending or receiving (curl
            // error 55 or 56, connectionLost), not as a securityError; the request fails all
            // the same, and the server never reads it.
            await #expect(throws: NetworkError.self) { _ = try await Self.get(anonymous, server) }
            let refused = try await server.waitForEvent("the anonymous connection closed") {
                $0.event == "closed" && $0.client == nil
            }
            #expect(refused.handshake == "failed", "\(refused)")
            #expect(refused.requests == 0, "\(refused)")
        }
    }
}
#endif
