#if os(Linux)
import Foundation
import Testing
@testable import Courier

/// CurlTransport's HTTP versions against nginx (started by each test, see ``NginxServer``),
/// which answers `$server_protocol $connection`: HTTP/2 by ALPN over https, many requests
/// multiplexed on one connection, and HTTP/1.1 when asked for or over cleartext http.
@Suite struct CurlTransportHTTP2Tests {
    /// The protocol and connection number one request arrived with.
    struct Arrival: Hashable {
        let protocolName: String
        let connection: Int
    }

    static func transport(
        _ certificates: TestCertificates, version: CurlTransport.Configuration.HTTPVersion = .automatic,
        pins: [String: [String]] = [:]
    ) throws -> CurlTransport {
        var configuration = CurlTransport.Configuration()
        configuration.proxy = .none
        configuration.httpVersion = version
        configuration.tls.extraRootsFile = certificates.rootFile
        configuration.tls.pins = try CertificatePinner(pins)
        return CurlTransport(configuration: configuration)
    }

    static func arrival(_ transport: CurlTransport, _ url: URL) async throws -> Arrival {
        let response = try await transport.send(HTTPRequest(url: url))
        let text = String(decoding: response.body, as: UTF8.self)
        let parts = text.split(separator: " ")
        guard response.status == 200, parts.count == 2,
              let connection = Int(parts[1].trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            throw NginxServerError.failed("unexpected answer \(response.status) \(text.debugDescription)")
        }
        return Arrival(protocolName: String(parts[0]), connection: connection)
    }

    /// `count` requests at once; their arrivals.
    static func concurrently(_ count: Int, _ transport: CurlTransport, _ url: URL) async throws -> [Arrival] {
        try await withThrowingTaskGroup(of: Arrival.self) { group in
            for index in 0..<count {
                group.addTask { try await arrival(transport, url.appendingPathComponent("r\(index)")) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test("over https the default configuration speaks HTTP/2 and multiplexes 50 requests on very few connections")
    func httpsIsHTTP2Multiplexed() async throws {
        try await withNginx { nginx, certificates in
            let url = URL(string: "https://localhost:\(nginx.httpsPort)/")!
            let transport = try Self.transport(certificates)
            let arrivals = try await Self.concurrently(50, transport, url)
            #expect(arrivals.count == 50)
            #expect(arrivals.allSatisfy { $0.protocolName == "HTTP/2.0" }, "\(Set(arrivals.map(\.protocolName)))")
            let connections = Set(arrivals.map(\.connection))
            #expect(connections.count <= 2, "50 requests used connections \(connections.sorted())")

            // And the connection stays for the next request.
            let next = try await Self.arrival(transport, url)
            #expect(next.protocolName == "HTTP/2.0")
            #expect(connections.contains(next.connection), "\(next.connection) not in \(connections.sorted())")
        }
    }

    @Test("httpVersion .http1_1 speaks HTTP/1.1 over https")
    func http11WhenAsked() async throws {
        try await withNginx { nginx, certificates in
            let url = URL(string: "https://localhost:\(nginx.httpsPort)/")!
            let transport = try Self.transport(certificates, version: .http1_1)
            let arrivals = try await Self.concurrently(4, transport, url)
            #expect(arrivals.allSatisfy { $0.protocolName == "HTTP/1.1" }, "\(arrivals)")
        }
    }

    @Test("cleartext http speaks HTTP/1.1")
    func cleartextIsHTTP11() async throws {
        try await withNginx { nginx, certificates in
            let url = URL(string: "http://127.0.0.1:\(nginx.httpPort)/")!
            let transport = try Self.transport(certificates)
            let arrivals = try await Self.concurrently(4, transport, url)
            #expect(arrivals.allSatisfy { $0.protocolName == "HTTP/1.1" }, "\(arrivals)")
        }
    }

    @Test("pins hold over HTTP/2: a right pin multiplexes, a wrong one fails every concurrent request")
    func pinsOverHTTP2() async throws {
        try await withNginx { nginx, certificates in
            let url = URL(string: "https://localhost:\(nginx.httpsPort)/")!
            let right = try Self.transport(certificates, pins: ["localhost": [certificates.intermediatePin]])
            let arrivals = try await Self.concurrently(20, right, url)
            #expect(arrivals.allSatisfy { $0.protocolName == "HTTP/2.0" })

            let wrong = try Self.transport(certificates, pins: ["localhost": [certificates.unrelatedRootPin]])
            let failures = await withTaskGroup(of: String.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        do {
                            _ = try await wrong.send(HTTPRequest(url: url))
                            return "succeeded"
                        } catch NetworkError.securityError(let message) {
                            return message
                        } catch {
                            return "not a securityError: \(error)"
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(failures.count == 20)
            for failure in failures {
                #expect(failure.contains("certificate pinning failed for localhost"), "\(failure)")
            }
        }
    }
}
#endif
