/// A scripted 200 whose body goes out in separate writes (mirrors the Python `stream` spec).
struct StreamSpec: Sendable, Encodable {
    /// How many writes.
    var chunks: Int
    /// The bytes of each write.
    var chunkSize: Int
    /// Each chunk after the first waits for one ``ScriptedServer/release(path:)``.
    var gated: Bool? = nil
    /// The byte at offset `i` is `i % 256` (instead of `x`).
    var pattern: Bool? = nil
    /// The `Content-Length` sent, when not the bytes sent (more: a truncated body).
    var declared: Int? = nil
    /// After the chunks, hold the connection until the client closes it.
    var hang: Bool? = nil
}

extension ScriptedResponse {
    /// A 200 streamed as `spec` says.
    static func streamed(_ spec: StreamSpec, headers: [String: String]? = nil) -> ScriptedResponse {
        ScriptedResponse(status: 200, headers: headers, stream: spec)
    }
}
