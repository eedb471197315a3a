import Foundation

/// What libcurl said when an exchange failed: its `CURLcode` and message. Kept as the cause of
/// the ``NetworkError`` that ``CurlTransport`` throws, for logs.
public struct CurlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `CURLcode` (for example 7, `CURLE_COULDNT_CONNECT`).
    public let code: Int
    /// libcurl's message for it, with the detail of this failure when there is one.
    public let message: String
    /// The system's `errno` of the failed connect or socket call, as libcurl kept it
    /// (`CURLINFO_OS_ERRNO`: 111 is `ECONNREFUSED` on Linux); 0 when there was none.
    public let systemErrorNumber: Int

    /// Creates the error for `code` with `message` and, for a socket failure, the system's
    /// `errno`.
    public init(code: Int, message: String, systemErrorNumber: Int = 0) {
        self.code = code
        self.message = message
        self.systemErrorNumber = systemErrorNumber
    }

    /// `curl error 7: Failed to connect to … (errno 111)`.
    public var description: String {
        systemErrorNumber == 0 ? "curl error \(code): \(message)" : "curl error \(code): \(message) (errno \(systemErrorNumber))"
    }
}

extension NetworkError {
    /// The ``NetworkError`` for a transfer to `url` that libcurl ended with `error` (not one a
    /// Courier callback aborted: that one carries its own reason).
    ///
    /// No connection made → `cannotConnect` to the URL's host and port: refused or unreachable
    /// (by the `errno` of the connect), the name not resolved, the TLS handshake failed; the
    /// proxy's name not resolved or its handshake failed → the reason `proxy`. The
    /// connection lost before any of the response (a reset, a failed send or receive) →
    /// `connectionLost` (once part of the response has arrived, the event loop answers
    /// `malformedResponse` instead: the answer broke off). libcurl never knows that the device
    /// is offline, so it never answers `noConnection`. Timeouts → `timeout`; a certificate
    /// rejected and pin mismatches → `securityError`; a response that broke HTTP's framing →
    /// `malformedResponse`; the rest → `unknown`. The ``CurlError`` is kept as the cause (in
    /// the message, for `securityError`).
    init(curl error: CurlError, url: URL?) {
        let (host, port) = Self.destination(of: url)
        switch error.code {
        case 5, 97: // COULDNT_RESOLVE_PROXY, PROXY (a SOCKS or HTTPS proxy's handshake failed)
            self = .cannotConnect(host: host, port: port, reason: .proxy, underlying: error)
        case 6: // COULDNT_RESOLVE_HOST
            self = .cannotConnect(host: host, port: port, reason: .hostNotFound, underlying: error)
        case 7: // COULDNT_CONNECT: why is in the connect's errno
            let refused = error.systemErrorNumber == Int(ECONNREFUSED)
            self = .cannotConnect(host: host, port: port, reason: refused ? .refused : .unreachable, underlying: error)
        case 35: // SSL_CONNECT_ERROR: the handshake failed (no common version or cipher, not TLS, cut off)
            self = .cannotConnect(host: host, port: port, reason: .tlsHandshake, underlying: error)
        case 55, 56: // SEND_ERROR, RECV_ERROR: the connection broke (a reset, a dropped link)
            self = .connectionLost(host: host, port: port, underlying: error)
        case 28: // OPERATION_TIMEDOUT
            self = .timeout(.attempt, underlying: error)
        case 51, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91, 98:
            // PEER_FAILED_VERIFICATION (51 is its old number), SSL_ENGINE_*,
            // SSL_CERTPROBLEM, SSL_CIPHER, USE_SSL_FAILED, SSL_ENGINE_INITFAILED,
            // SSL_CACERT_BADFILE, SSL_SHUTDOWN_FAILED, SSL_CRL_BADFILE, SSL_ISSUER_ERROR,
            // SSL_PINNEDPUBKEYNOTMATCH, SSL_INVALIDCERTSTATUS, SSL_CLIENTCERT
            self = .securityError("TLS: \(error.message) (curl error \(error.code))")
        case 1, 8, 16, 18, 52, 61, 92, 95:
            // UNSUPPORTED_PROTOCOL (a reply that is not HTTP: URLs are checked before sending),
            // WEIRD_SERVER_REPLY, HTTP2, PARTIAL_FILE, GOT_NOTHING, BAD_CONTENT_ENCODING,
            // HTTP2_STREAM, HTTP3
            self = .malformedResponse(error.message, underlying: error)
        case 3: // URL_MALFORMAT
            self = .invalidURL("libcurl cannot parse the URL: \(error.message)")
        default:
            self = .unknown(underlying: error)
        }
    }
}
