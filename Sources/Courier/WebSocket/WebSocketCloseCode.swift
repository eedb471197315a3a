/// A WebSocket close status code (RFC 6455 §7.4): the well-known ones as constants, any other
/// by its number (3000–4999 are for applications and libraries, e.g. graphql-ws's 4401).
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code on the wire.
    public let rawValue: UInt16

    /// The code `rawValue`.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the endpoint goes away (a server shutting down, a client leaving).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the peer broke the protocol.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: a message of a type the endpoint cannot accept.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: the peer's close frame had no code (never sent; reported only).
    public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
    /// 1007: a text message that is not UTF-8.
    public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message that violates the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a frame or message larger than the endpoint accepts.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1010: the server did not negotiate an extension the client requires.
    public static let mandatoryExtension = WebSocketCloseCode(rawValue: 1010)
    /// 1011: the server met an unexpected condition.
    public static let internalServerError = WebSocketCloseCode(rawValue: 1011)
    /// 1012: the server is restarting (IANA's registry): come back.
    public static let serviceRestart = WebSocketCloseCode(rawValue: 1012)
    /// 1013: the server is overloaded (IANA's registry): come back later.
    public static let tryAgainLater = WebSocketCloseCode(rawValue: 1013)
    /// 1014: a gateway got a bad answer from the server behind it (IANA's registry).
    public static let badGateway = WebSocketCloseCode(rawValue: 1014)

    /// Whether an endpoint may send this code in a close frame (RFC 6455 §7.4.1, §7.4.2, and
    /// IANA's registry since): 1000–1003, 1007–1014 and 3000–4999.
    public var isSendable: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// The number.
    public var description: String { String(rawValue) }
}
