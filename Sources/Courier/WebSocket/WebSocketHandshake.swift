import Foundation

/// The opening handshake (RFC 6455 §4): the Upgrade request's fields, and the checks of the
/// server's 101.
package struct WebSocketHandshake: Sendable {
    /// `Sec-WebSocket-Key`: 16 random bytes, base64.
    let key: String
    let subprotocols: [String]
    /// Whether `permessage-deflate` is offered.
    let offersCompression: Bool

    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    init(random: any RandomSource, subprotocols: [String], offersCompression: Bool) {
        self.offersCompression = offersCompression
        var bytes = [UInt8]()
        for _ in 0..<2 {
            let value = random.next()
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        key = Data(bytes).base64EncodedString()
        self.subprotocols = subprotocols
    }

    /// The handshake an Upgrade request carries (its key and the subprotocols offered).
    init(request: HTTPRequest) throws(NetworkError) {
        guard let key = request.headers["Sec-WebSocket-Key"], !key.isEmpty else {
            throw .invalidRequest("a WebSocket handshake needs a Sec-WebSocket-Key field")
        }
        self.key = key
        offersCompression = (request.headers["Sec-WebSocket-Extensions"] ?? "").lowercased().contains(PerMessageDeflate.offer)
        subprotocols = (request.headers["Sec-WebSocket-Protocol"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `request` as an Upgrade request: a GET with the handshake's fields (its own fields
    /// kept).
    func upgradeRequest(_ request: HTTPRequest) -> HTTPRequest {
        var request = request
        request.method = .get
        request.body = nil
        request.bodyStream = nil
        request.headers["Upgrade"] = "websocket"
        request.headers["Connection"] = "Upgrade"
        request.headers["Sec-WebSocket-Key"] = key
        request.headers["Sec-WebSocket-Version"] = "13"
        if !subprotocols.isEmpty { request.headers["Sec-WebSocket-Protocol"] = subprotocols.joined(separator: ", ") }
        if offersCompression { request.headers["Sec-WebSocket-Extensions"] = PerMessageDeflate.offer }
        return request
    }

    /// The `Sec-WebSocket-Accept` the server must answer `key` with.
    package static func accept(for key: String) -> String {
        Data(SHA1Digest.hash(of: Data((key + guid).utf8))).base64EncodedString()
    }

    /// Checks a 101 against the request: `Upgrade: websocket`, `Connection: Upgrade`, the
    /// accept value, a subprotocol among those offered, `permessage-deflate` only if offered.
    /// Returns the subprotocol and the compression chosen.
    func validate(_ response: HTTPResponse) throws(NetworkError) -> (subprotocol: String?, compression: PerMessageDeflate.Parameters?) {
        func refuse(_ why: String) -> NetworkError { .invalidResponse("WebSocket handshake: \(why)") }
        guard let upgrade = response.headers["Upgrade"], HTTPSyntax.equalsIgnoringASCIICase(upgrade.trimmingCharacters(in: .whitespaces), "websocket") else {
            throw refuse("the 101 has no `Upgrade: websocket`")
        }
        let connection = response.headers["Connection"] ?? ""
        guard connection.split(separator: ",").contains(where: { HTTPSyntax.equalsIgnoringASCIICase($0.trimmingCharacters(in: .whitespaces), "upgrade") }) else {
            throw refuse("the 101 has no `Connection: Upgrade`")
        }
        guard response.headers["Sec-WebSocket-Accept"]?.trimmingCharacters(in: .whitespaces) == Self.accept(for: key) else {
            throw refuse("Sec-WebSocket-Accept does not answer the key sent")
        }
        var compression: PerMessageDeflate.Parameters?
        if let extensions = response.headers["Sec-WebSocket-Extensions"], !extensions.trimmingCharacters(in: .whitespaces).isEmpty {
            guard offersCompression else { throw refuse("the server chose extensions when none were offered: \(extensions)") }
            compression = try PerMessageDeflate.negotiate(extensions).get()
        }
        guard let chosen = response.headers["Sec-WebSocket-Protocol"]?.trimmingCharacters(in: .whitespaces), !chosen.isEmpty else {
            return (nil, compression)
        }
        guard subprotocols.contains(chosen) else { throw refuse("the server chose subprotocol \(chosen), which was not offered") }
        return (chosen, compression)
    }

    /// A response head (`HTTP/1.1 101 …` to its empty line) as a response without a body; nil
    /// if it is not one.
    static func parseHead(_ head: some Collection<UInt8>) -> HTTPResponse? {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        guard !lines.isEmpty else { return nil }
        let status = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard status.count >= 2, status[0].hasPrefix("HTTP/1."), status[1].count == 3, let code = Int(status[1]) else { return nil }
        var headers = HTTPHeaders()
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.add(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return HTTPResponse(status: code, headers: headers, body: Data())
    }
}
