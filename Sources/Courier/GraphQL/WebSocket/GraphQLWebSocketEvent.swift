import Foundation

/// What a ``GraphQLWebSocketConnection`` hands one subscription: a result's payload with the
/// handshake response of the socket it came on, or the failure that ended it. The stream's end
/// without a failure is the server's `complete`.
enum GraphQLWebSocketEvent: Sendable {
    case result(Data, HTTPResponse)
    case failed(NetworkError)
}
