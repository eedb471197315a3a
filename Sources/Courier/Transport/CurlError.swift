/// What libcurl said when an exchange failed: its `CURLcode` and message. Kept as the cause of
/// the ``NetworkError`` that ``CurlTransport`` throws, for logs.
public struct CurlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `CURLcode` (for example 7, `CURLE_COULDNT_CONNECT`).
    public let code: Int
    /// libcurl's message for it, with the detail of this failure when there is one.
    public let message: String

    /// Creates the error for `code` with `message`.
    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    /// `curl error 7: Failed to connect to …`.
    public var description: String { "curl error \(code): \(message)" }
}

extension NetworkError {
    /// The ``NetworkError`` for a transfer libcurl ended with `error` (not one a Courier
    /// callback aborted: that one carries its own reason).
    ///
    /// Refused, unresolvable or unreachable → `noConnection`; the connection lost mid-exchange
    /// (a reset, a failed send or receive) → `noConnection` too, as URLSession's
    /// `networkConnectionLost` (once part of the response has arrived, the event loop answers
    /// `malformedResponse` instead: the answer broke off); timeouts → `timeout`; TLS failures and pin mismatches →
    /// `securityError`; a response that broke HTTP's framing → `malformedResponse`; the rest →
    /// `unknown`. The ``CurlError`` is kept as the cause (in the message, for `securityError`).
    init(curl error: CurlError) {
        switch error.code {
        case 5, 6, 7: // COULDNT_RESOLVE_PROXY, COULDNT_RESOLVE_HOST, COULDNT_CONNECT
            self = .noConnection(underlying: error)
        case 55, 56: // SEND_ERROR, RECV_ERROR: the connection broke (a reset, a dropped link)
            self = .noConnection(underlying: error)
        case 28: // OPERATION_TIMEDOUT
            self = .timeout(.attempt, underlying: error)
        case 35, 51, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91, 98:
            // SSL_CONNECT_ERROR, PEER_FAILED_VERIFICATION (51 is its old number), SSL_ENGINE_*,
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
