import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkError {
    /// Maps a `URLError` to Courier's error model, keeping it as the cause.
    public init(_ error: URLError) {
        switch error.code {
        case .notConnectedToInternet, .cannotConnectToHost, .networkConnectionLost, .dnsLookupFailed,
             .cannotFindHost, .internationalRoamingOff, .dataNotAllowed, .callIsActive:
            self = .noConnection(underlying: error)
        case .timedOut:
            self = .timeout(.attempt, underlying: error)
        case .cancelled:
            self = .cancelled
        case .badURL, .unsupportedURL:
            self = .invalidURL(error.localizedDescription)
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
             .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
             .clientCertificateRequired, .appTransportSecurityRequiresSecureConnection:
            self = .securityError(error.localizedDescription)
        default:
            self = .unknown(underlying: error)
        }
    }
}
