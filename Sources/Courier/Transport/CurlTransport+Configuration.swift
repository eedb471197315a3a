import Foundation

extension CurlTransport {
    /// How a ``CurlTransport`` connects, grouped by concern; every default is documented where
    /// it is declared.
    public struct Configuration: Sendable {
        /// Connection reuse and limits.
        public var connections = Connections()
        /// Time limits.
        public var timeouts = Timeouts()
        /// Size limits of a response's head (its body's limit is per request:
        /// ``HTTPRequest/maximumResponseSize``).
        public var limits = Limits()
        /// Which HTTP versions to speak. Default ``HTTPVersion/automatic``.
        public var httpVersion = HTTPVersion.automatic
        /// Certificates, pins and TLS versions.
        public var tls = TLS()
        /// The proxy. Default ``Proxy/environment``.
        public var proxy = Proxy.environment
        /// Whether to ask for compressed responses (`Accept-Encoding` with what libcurl can
        /// decode: gzip, deflate, br, zstd here) and hand over the decoded body, without its
        /// `Content-Encoding` and `Content-Length` fields. A request that sets its own
        /// `Accept-Encoding` gets the bytes as sent, undecoded. Default `true`.
        public var decompression = true

        /// The defaults.
        public init() {}

        /// Connection reuse and limits. Connections are kept alive and reused (HTTP/1.1) or
        /// shared by many requests at once (HTTP/2).
        public struct Connections: Sendable {
            /// Connections open to one host at once (HTTP/2 multiplexes many requests over
            /// one). A request beyond the limit waits inside libcurl for a free connection, and
            /// its timeout runs while it waits: keep this at least the client's
            /// ``APIClient/Configuration/Limits/maxConcurrentRequests`` (64 by default), so
            /// that no admitted request waits in a hidden queue. Default 64; 0 means no limit.
            public var maxPerHost = 64
            /// Connections open at once over all hosts. Default 0: no limit beyond the
            /// per-host one.
            public var maxTotal = 0
            /// Idle connections kept for reuse, over all hosts. Default 256.
            public var maxIdle = 256

            /// The defaults.
            public init() {}
        }

        /// Time limits, to the millisecond.
        public struct Timeouts: Sendable {
            /// Resolving the host and connecting (TLS handshake included). Default 10 s.
            public var connect = Duration.seconds(10)
            /// The whole exchange of a request that sets no ``HTTPRequest/timeout``, from when
            /// libcurl starts it (resolving, connecting, sending, receiving). Default 60 s.
            public var exchange = Duration.seconds(60)

            /// The defaults.
            public init() {}
        }

        /// Size limits of a response's head.
        public struct Limits: Sendable {
            /// The largest response head (status line and header fields, counted as received,
            /// informational responses included). A larger one fails the exchange with
            /// ``NetworkError/malformedResponse(_:underlying:)`` while it arrives. Default
            /// 256 KiB.
            public var maxHeaderBytes = 256 * 1024

            /// The defaults.
            public init() {}
        }

        /// Which HTTP versions to speak.
        public enum HTTPVersion: Sendable {
            /// HTTP/2 over TLS when the server offers it (ALPN), many requests multiplexed on
            /// one connection; HTTP/1.1 otherwise, and always over cleartext `http`.
            case automatic
            /// HTTP/1.1 only.
            case http1_1
        }

        /// Certificates, pins and TLS versions.
        public struct TLS: Sendable {
            /// The oldest TLS version accepted. Default ``Version/v1_2``.
            public var minimumVersion = Version.v1_2
            /// A PEM file of root certificates trusted in addition to the system's trust store
            /// (a private CA). Default nil.
            public var extraRootsFile: String?
            /// Whether the system's CA directory (libcurl's `CURLOPT_CAPATH`, `/etc/ssl/certs` on
            /// Debian) is trusted besides its CA file (`ca-certificates.crt`). Default `false`:
            /// libcurl then parses the roots once per transport instead of for every new
            /// connection; a root that is only in the directory needs `update-ca-certificates`,
            /// or ``extraRootsFile``. When the CA file does not exist, the directory is used.
            public var trustsCADirectory = false
            /// A client certificate for mutual TLS. Default nil.
            public var clientCertificate: ClientCertificate?
            /// Public-key pins per host pattern. Default none.
            public var pins = CertificatePinner()

            /// The defaults.
            public init() {}

            /// A TLS version.
            public enum Version: Sendable {
                /// TLS 1.2.
                case v1_2
                /// TLS 1.3.
                case v1_3
            }

            /// A client certificate and its private key, both PEM files.
            public struct ClientCertificate: Sendable {
                /// The certificate (chain) file.
                public var certificateFile: String
                /// The private key file.
                public var keyFile: String
                /// The key's passphrase, if it is encrypted.
                public var keyPassword: String?

                /// A client certificate from PEM files.
                public init(certificateFile: String, keyFile: String, keyPassword: String? = nil) {
                    self.certificateFile = certificateFile
                    self.keyFile = keyFile
                    self.keyPassword = keyPassword
                }
            }
        }

        /// Which proxy requests go through.
        public enum Proxy: Sendable {
            /// None, whatever the environment says.
            case none
            /// The one the environment names, as curl reads it: `http_proxy`, `https_proxy`,
            /// `all_proxy` and `no_proxy` (lowercase; `HTTPS_PROXY` too). The default, as with
            /// curl and FoundationNetworking before it.
            case environment
            /// This proxy (`http://host:port`, `socks5://…`).
            case url(URL)
        }
    }
}
