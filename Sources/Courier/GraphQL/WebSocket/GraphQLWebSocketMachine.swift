import Foundation

/// One GraphQL-over-WebSocket connection's protocol as a value: text messages from the server
/// in, actions out (frames to send, results to hand out, the end). No I/O and no clock: the
/// socket's owner (``GraphQLWebSocketConnection``) performs what it returns, and tests drive it
/// directly with frames.
///
/// Subscriptions given before the server's `connection_ack` wait for it; a message other
/// than the acknowledgement (or a keep-alive) before it, a message that is not a JSON object
/// with a known `type`, or a `connection_error` end the connection (``Action/broken(_:)``).
struct GraphQLWebSocketMachine: Sendable {
    /// Where the connection stands.
    enum Phase: Equatable, Sendable {
        /// `connection_init` is out; the acknowledgement is awaited.
        case awaitingAcknowledgement
        /// Acknowledged: subscriptions go out as they come.
        case ready
        /// Ended (the peer broke the protocol, or the connection closed).
        case ended
    }

    /// What the owner does, in order.
    enum Action: Equatable, Sendable {
        /// A text message to send.
        case send(String)
        /// The server acknowledged the connection.
        case acknowledged
        /// A result for the subscription `id`: its payload (`{data, errors, extensions}`).
        case result(id: String, payload: Data)
        /// The subscription `id` failed with `errors` and is over.
        case failed(id: String, errors: [GraphQLError])
        /// The subscription `id` is over.
        case completed(id: String)
        /// The server refused the credential (an `UNAUTHENTICATED` error): renew it and connect
        /// again.
        case unauthenticated
        /// A protocol-level ping went unanswered: the peer is taken for dead.
        case unresponsive
        /// The server broke the protocol or refused the connection, as `reason` says; the close
        /// that says so to the server is the preceding action.
        case broken(String)
        /// Close the socket with this code and reason.
        case close(code: UInt16, reason: String)
    }

    /// What a close from the server (or a drop, with no code) means for the subscriptions.
    enum CloseVerdict: Equatable, Sendable {
        /// Connect again, with the reconnection policy.
        case reconnect
        /// Renew the credential, then connect again (4401, 4403).
        case renewCredential
        /// The connection cannot succeed as it is: fail the subscriptions.
        case fail
    }

    let kind: GraphQLWebSocketProtocol
    private(set) var phase = Phase.awaitingAcknowledgement
    /// Subscriptions given before the acknowledgement, in order, with their payloads.
    private var waiting: [(id: String, payload: Data)] = []
    /// Subscriptions whose `subscribe` (`start`) went out and that have not ended.
    private(set) var running: Set<String> = []
    /// Whether our `ping` awaits its `pong` (graphql-transport-ws).
    private var pingOutstanding = false

    init(kind: GraphQLWebSocketProtocol) {
        self.kind = kind
    }

    // MARK: Client to server

    /// The first message: `connection_init`, with `payload` (a JSON object) when given.
    func connectionInit(payload: Data?) -> Action {
        .send(Self.message(type: "connection_init", id: nil, payload: payload))
    }

    /// Subscribes `id` with `payload` (`{query, operationName, variables, extensions}`): now,
    /// or once the server has acknowledged the connection.
    mutating func subscribe(id: String, payload: Data) -> [Action] {
        switch phase {
        case .awaitingAcknowledgement:
            waiting.append((id, payload))
            return []
        case .ready:
            running.insert(id)
            return [.send(Self.message(type: kind == .transportWS ? "subscribe" : "start", id: id, payload: payload))]
        case .ended:
            return []
        }
    }

    /// Stops `id`: `complete` (`stop`) when its subscription went out and has not ended.
    mutating func stop(id: String) -> [Action] {
        waiting.removeAll { $0.id == id }
        guard phase == .ready, running.remove(id) != nil else { return [] }
        return [.send(Self.message(type: kind == .transportWS ? "complete" : "stop", id: id, payload: nil))]
    }

    /// What goes before a normal close: `connection_terminate` (legacy), then the close.
    mutating func terminate() -> [Action] {
        let wasOpen = phase != .ended
        phase = .ended
        guard wasOpen else { return [] }
        var actions: [Action] = []
        if kind == .legacyWS { actions.append(.send(Self.message(type: "connection_terminate", id: nil, payload: nil))) }
        actions.append(.close(code: 1000, reason: ""))
        return actions
    }

    /// A keep-alive ping is due (graphql-transport-ws): `ping`, or ``Action/unresponsive`` when
    /// the last one's `pong` has not come.
    mutating func keepAliveDue() -> [Action] {
        guard kind == .transportWS, phase == .ready else { return [] }
        if pingOutstanding { return [.unresponsive] }
        pingOutstanding = true
        return [.send(Self.message(type: "ping", id: nil, payload: nil))]
    }

    // MARK: Server to client

    /// A text message from the server.
    mutating func received(_ text: String) -> [Action] {
        guard phase != .ended else { return [] }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [])) as? [String: Any] else {
            return broken("the server sent a message that is not a JSON object: \(Self.excerpt(text))")
        }
        guard let type = object["type"] as? String else {
            return broken("the server sent a message without a type: \(Self.excerpt(text))")
        }
        let id = object["id"] as? String
        let payload = object["payload"].flatMap { $0 is NSNull ? nil : $0 }
        if phase == .awaitingAcknowledgement {
            switch type {
            case "connection_ack":
                phase = .ready
                var actions: [Action] = [.acknowledged]
                for (id, payload) in waiting { actions += subscribe(id: id, payload: payload) }
                waiting = []
                return actions
            case "ping" where kind == .transportWS:
                return [.send(Self.message(type: "pong", id: nil, payload: nil))]
            case "pong" where kind == .transportWS, "ka" where kind == .legacyWS:
                return []
            case "connection_error" where kind == .legacyWS:
                return connectionError(payload)
            default:
                return broken("the server sent \"\(type)\" before acknowledging the connection")
            }
        }
        switch (kind, type) {
        case (_, "connection_ack"), (.legacyWS, "ka"):
            return []
        case (.transportWS, "ping"):
            return [.send(Self.message(type: "pong", id: nil, payload: nil))]
        case (.transportWS, "pong"):
            pingOutstanding = false
            return []
        case (.transportWS, "next"), (.legacyWS, "data"):
            guard let id else { return broken("the server sent \"\(type)\" without an id") }
            // A result for a subscription already stopped is late, not wrong.
            guard running.contains(id) else { return [] }
            guard let payload, let data = try? JSONSerialization.data(withJSONObject: payload, options: [.fragmentsAllowed]) else {
                return broken("the server sent \"\(type)\" for \(id) without a payload")
            }
            if GraphQLEnvelope.refusesCredential(data, evenWithData: true) { return [.unauthenticated] }
            return [.result(id: id, payload: data)]
        case (_, "error"):
            guard let id else { return broken("the server sent \"error\" without an id") }
            guard running.remove(id) != nil else { return [] }
            let errors = Self.errors(in: payload)
            if errors.contains(where: { $0.code == "UNAUTHENTICATED" }) {
                running.insert(id)   // subscribed again after the renewal
                return [.unauthenticated]
            }
            return [.failed(id: id, errors: errors)]
        case (_, "complete"):
            guard let id else { return broken("the server sent \"complete\" without an id") }
            guard running.remove(id) != nil else { return [] }
            return [.completed(id: id)]
        case (.legacyWS, "connection_error"):
            return connectionError(payload)
        default:
            return broken("the server sent a message of unknown type \"\(type)\"")
        }
    }

    /// The connection closed (`code` nil: dropped without a close frame): whatever it was
    /// doing is over.
    mutating func closed() {
        phase = .ended
        pingOutstanding = false
    }

    /// What a close with `code` (nil when the connection dropped) means, as the graphql-ws
    /// client reads it: 4401 and 4403 ask for a renewed credential; 4400 (bad request), 4004
    /// (bad response), 4005, 4406 (subprotocol), 4409 (duplicate id), 4429 (init twice), 4500
    /// (server error) and RFC 6455's protocol-level errors cannot succeed by trying again; a
    /// normal closure, going away, a restart, a timeout (4408, 4504) or a drop connect again.
    static func verdict(closeCode code: UInt16?) -> CloseVerdict {
        guard let code else { return .reconnect }
        switch code {
        case 4401, 4403: return .renewCredential
        case 4400, 4004, 4005, 4406, 4409, 4429, 4500: return .fail
        case 1000, 1001, 1005, 1006, 1012, 1013, 1014: return .reconnect
        case 1000...1999: return .fail
        default: return .reconnect
        }
    }

    // MARK: Parts

    private mutating func broken(_ reason: String) -> [Action] {
        phase = .ended
        // graphql-transport-ws closes with 4400 for a message it cannot take; legacy has no code.
        let close = Action.close(code: kind == .transportWS ? 4400 : 1002, reason: "Invalid message")
        return [close, .broken(reason)]
    }

    private mutating func connectionError(_ payload: Any?) -> [Action] {
        let errors = Self.errors(in: payload)
        if errors.contains(where: { $0.code == "UNAUTHENTICATED" }) {
            phase = .ended
            return [.close(code: 1000, reason: ""), .unauthenticated]
        }
        phase = .ended
        let message = errors.map(\.message).joined(separator: "; ")
        return [.close(code: 1000, reason: ""), .broken("the server refused the connection" + (message.isEmpty ? "" : ": \(message)"))]
    }

    /// The GraphQL errors of an `error` or `connection_error` payload: an array of them, or
    /// one (legacy); a payload that is neither is one error with its JSON as the message.
    static func errors(in payload: Any?) -> [GraphQLError] {
        guard let payload, let data = try? JSONSerialization.data(withJSONObject: payload, options: [.fragmentsAllowed]) else { return [] }
        if let errors = try? JSONDecoder().decode([GraphQLError].self, from: data) { return errors }
        if let error = try? JSONDecoder().decode(GraphQLError.self, from: data) { return [error] }
        let text = String(decoding: data, as: UTF8.self)
        return (try? JSONDecoder().decode([GraphQLError].self, from: Data(#"[{"message":\#(Self.jsonString(text))}]"#.utf8))) ?? []
    }

    /// A message: `{"type":…,"id":…,"payload":…}`, the payload's JSON as given.
    static func message(type: String, id: String?, payload: Data?) -> String {
        var text = #"{"type":"\#(type)""#
        if let id { text += #","id":\#(jsonString(id))"# }
        if let payload { text += #","payload":"# + String(decoding: payload, as: UTF8.self) }
        return text + "}"
    }

    static func jsonString(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    private static func excerpt(_ text: String) -> String {
        text.count > 120 ? String(text.prefix(120)) + "…" : text
    }
}
