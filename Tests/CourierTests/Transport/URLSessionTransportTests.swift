import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import Courier

/// What only ``URLSessionTransport`` does: its error mapping, and pins it cannot enforce on
/// Linux. (The contract every transport keeps is in `HTTPTransportContractTests`.)
@Suite struct URLSessionTransportTests {
    @Test("url errors map to the error model")
    func urlErrorsMapToTheErrorModel() {
        let offline: [URLError.Code] = [.notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff, .callIsActive]
        for code in offline {
            guard case .noConnection(let cause) = NetworkError(URLError(code)) else {
                Issue.record("\(code) should be noConnection"); continue
            }
            #expect((cause as? URLError)?.code == code)
        }
        let url = URL(string: "https://api.example.com/v1/orders")!
        let unreachable: [(URLError.Code, NetworkError.ConnectFailure)] = [
            (.cannotConnectToHost, .refused), (.dnsLookupFailed, .hostNotFound), (.cannotFindHost, .hostNotFound),
            (.secureConnectionFailed, .tlsHandshake),
        ]
        for (code, reason) in unreachable {
            let error = NetworkError(URLError(code, userInfo: [NSURLErrorFailingURLErrorKey: url]))
            guard case .cannotConnect("api.example.com", 443, reason, let cause) = error else {
                Issue.record("\(code) should be cannotConnect, \(reason): \(error)"); continue
            }
            #expect((cause as? URLError)?.code == code)
        }
        let unrouted = URLError(.cannotConnectToHost, userInfo: [NSURLErrorFailingURLErrorKey: url, "_kCFStreamErrorCodeKey": Int(ENETUNREACH)])
        guard case .cannotConnect(_, _, .unreachable, _) = NetworkError(unrouted) else { Issue.record("ENETUNREACH"); return }
        guard case .connectionLost("api.example.com", 443, _) = NetworkError(URLError(.networkConnectionLost, userInfo: [NSURLErrorFailingURLErrorKey: url]))
        else { Issue.record("networkConnectionLost"); return }
        guard case .timeout(.attempt, let cause) = NetworkError(URLError(.timedOut)) else { Issue.record("timedOut"); return }
        #expect((cause as? URLError)?.code == .timedOut)
        guard case .cancelled = NetworkError(URLError(.cancelled)) else { Issue.record("cancelled"); return }
        guard case .securityError = NetworkError(URLError(.serverCertificateUntrusted)) else { Issue.record("certificate"); return }
        guard case .unknown(let other) = NetworkError(URLError(.badServerResponse)) else { Issue.record("other"); return }
        #expect((other as? URLError)?.code == .badServerResponse)
        #expect(NetworkError(URLError(.timedOut)).isRetryable)
    }

    @Test("a produced body whose producer waits holds no thread: cancelling the caller ends the send with cancelled", .timeLimit(.minutes(1)))
    func producedBodyIsCancellable() async throws {
        let (chunks, producing) = AsyncStream.makeStream(of: Data.self)
        let (asked, asking) = AsyncStream.makeStream(of: Void.self)
        var request = HTTPRequest(method: .post, url: URL(string: "http://127.0.0.1:9/upload")!)
        request.bodyStream = .chunks(NotifyingChunks(chunks: chunks, asked: asking), length: nil)
        let send = Task { try await URLSessionTransport().send(request) }
        for await _ in asked { break }   // the producer waits for a chunk that never comes
        send.cancel()
        let error = await #expect(throws: NetworkError.self) { try await send.value }
        guard case .cancelled? = error else { Issue.record("got \(String(describing: error))"); return }
        producing.finish()
    }

    #if canImport(FoundationNetworking)
    @Test("on Linux a configuration with certificate pins is refused, not silently ignored")
    func pinsAreRefusedOnLinux() throws {
        let pins = try CertificatePinner(["api.example.com": ["sha256/" + Data(count: 32).base64EncodedString()]])
        #expect {
            _ = try URLSessionTransport(certificatePinner: pins)
        } throws: { error in
            guard case NetworkError.securityError(let reason) = error else { return false }
            return reason.contains("CurlTransport")
        }
        _ = try URLSessionTransport(certificatePinner: CertificatePinner())
    }
    #endif
}
