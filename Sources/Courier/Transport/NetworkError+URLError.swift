import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkError {
    /// Maps a `URLError` to Courier's error model, keeping it as the cause; the host and port of
    /// a connection error are its failing URL's.
    ///
    /// The device offline (`notConnectedToInternet`, `dataNotAllowed`, `internationalRoamingOff`,
    /// `callIsActive`) → `noConnection`; no connection to the server (`cannotConnectToHost`:
    /// refused, or unreachable when the error's POSIX code says so; `cannotFindHost` and
    /// `dnsLookupFailed`: host not found; `secureConnectionFailed`: the TLS handshake) →
    /// `cannotConnect`; `networkConnectionLost` → `connectionLost`; certificate errors →
    /// `securityError`.
    public init(_ error: URLError) {
        self.init(error, url: error.failingURL)
    }

    /// Maps a `URLError` of an exchange with `url`.
    init(_ error: URLError, url: URL?) {
        let (host, port) = Self.destination(of: url ?? error.failingURL)
        switch error.code {
        case .notConnectedToInternet, .internationalRoamingOff, .dataNotAllowed, .callIsActive:
            self = .noConnection(underlying: error)
        case .cannotConnectToHost:
            self = .cannotConnect(host: host, port: port, reason: Self.connectFailure(of: error), underlying: error)
        case .dnsLookupFailed, .cannotFindHost:
            self = .cannotConnect(host: host, port: port, reason: .hostNotFound, underlying: error)
        case .secureConnectionFailed:
            self = .cannotConnect(host: host, port: port, reason: .tlsHandshake, underlying: error)
        case .networkConnectionLost:
            self = .connectionLost(host: host, port: port, underlying: error)
        case .timedOut:
            self = .timeout(.attempt, underlying: error)
        case .cancelled:
            self = .cancelled
        case .badURL, .unsupportedURL:
            self = .invalidURL(error.localizedDescription)
        case .serverCertificateHasBadDate, .serverCertificateUntrusted, .serverCertificateHasUnknownRoot,
             .serverCertificateNotYetValid, .clientCertificateRejected, .clientCertificateRequired,
             .appTransportSecurityRequiresSecureConnection:
            self = .securityError(error.localizedDescription)
        default:
            self = .unknown(underlying: error)
        }
    }

    /// Refused, unless the stream error URLSession attached names another POSIX error (Apple
    /// platforms attach `_kCFStreamErrorCodeKey`; FoundationNetworking does not).
    private static func connectFailure(of error: URLError) -> ConnectFailure {
        guard let code = error.userInfo["_kCFStreamErrorCodeKey"] as? Int else { return .refused }
        switch Int32(truncatingIfNeeded: code) {
        case ENETUNREACH, EHOSTUNREACH, ENETDOWN, EHOSTDOWN: return .unreachable
        default: return .refused
        }
    }
}
