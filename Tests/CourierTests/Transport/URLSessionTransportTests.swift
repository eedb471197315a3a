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
        let noConnection: [URLError.Code] = [.notConnectedToInternet, .cannotConnectToHost, .networkConnectionLost, .dnsLookupFailed, .cannotFindHost]
        for code in noConnection {
            guard case .noConnection(let cause) = NetworkError(URLError(code)) else {
                Issue.record("\(code) should be noConnection"); continue
            }
            #expect((cause as? URLError)?.code == code)
        }
        guard case .timeout(.attempt, let cause) = NetworkError(URLError(.timedOut)) else { Issue.record("timedOut"); return }
        #expect((cause as? URLError)?.code == .timedOut)
        guard case .cancelled = NetworkError(URLError(.cancelled)) else { Issue.record("cancelled"); return }
        guard case .securityError = NetworkError(URLError(.serverCertificateUntrusted)) else { Issue.record("certificate"); return }
        guard case .unknown(let other) = NetworkError(URLError(.badServerResponse)) else { Issue.record("other"); return }
        #expect((other as? URLError)?.code == .badServerResponse)
        #expect(NetworkError(URLError(.timedOut)).isRetryable)
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
