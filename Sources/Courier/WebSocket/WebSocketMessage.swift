import Foundation

/// One whole WebSocket message, as received from ``WebSocket/messages`` or given to
/// ``WebSocket/send(_:)``: its fragments joined (and decompressed), text already checked to be
/// UTF-8.
public enum WebSocketMessage: Sendable, Equatable {
    /// A text message.
    case text(String)
    /// A binary message.
    case binary(Data)
}
