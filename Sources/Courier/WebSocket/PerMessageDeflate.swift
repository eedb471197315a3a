import CZlib
import Foundation

/// The `permessage-deflate` extension (RFC 7692) of one connection, once negotiated: a raw
/// deflate stream per direction, kept across messages unless the server said no context
/// takeover for that direction.
///
/// Used under its channel's lock only (one message at a time each way).
final class PerMessageDeflate: @unchecked Sendable {
    // Invariant: the two streams are used by one thread at a time (the channel's lock), and
    // freed in `deinit`; their addresses never change (zlib keeps pointers to them).
    /// What the server's answer set.
    struct Parameters: Equatable, Sendable {
        var serverNoContextTakeover = false
        var clientNoContextTakeover = false
        var serverMaxWindowBits = 15
    }

    /// The offer in `Sec-WebSocket-Extensions`.
    static let offer = "permessage-deflate"

    let parameters: Parameters
    private let deflater: UnsafeMutablePointer<z_stream>
    private let inflater: UnsafeMutablePointer<z_stream>

    init?(_ parameters: Parameters) {
        self.parameters = parameters
        deflater = .allocate(capacity: 1)
        deflater.initialize(to: z_stream())
        inflater = .allocate(capacity: 1)
        inflater.initialize(to: z_stream())
        // Window 15 both ways: inflating with the largest window reads any smaller one; the
        // client's window was not limited (no client_max_window_bits was offered).
        guard courier_deflate_init(deflater, Z_DEFAULT_COMPRESSION, 15) == Z_OK else {
            deflater.deallocate()
            inflater.deallocate()
            return nil
        }
        guard courier_inflate_init(inflater, 15) == Z_OK else {
            deflateEnd(deflater)
            deflater.deallocate()
            inflater.deallocate()
            return nil
        }
    }

    deinit {
        deflateEnd(deflater)
        inflateEnd(inflater)
        deflater.deallocate()
        inflater.deallocate()
    }

    /// The server's `Sec-WebSocket-Extensions` answer to the offer, or why it is refused.
    static func negotiate(_ header: String) -> Result<Parameters, NetworkError> {
        func refuse(_ why: String) -> Result<Parameters, NetworkError> { .failure(.invalidResponse("WebSocket handshake: \(why)")) }
        let extensions = header.split(separator: ",")
        guard extensions.count == 1 else { return refuse("the server chose more than the one extension offered: \(header)") }
        let items = extensions[0].split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard items.first?.lowercased() == "permessage-deflate" else { return refuse("the server chose an extension not offered: \(header)") }
        var parameters = Parameters()
        var seen = Set<String>()
        for item in items.dropFirst() {
            let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let name = pair[0].lowercased()
            guard seen.insert(name).inserted else { return refuse("permessage-deflate parameter \(name) given twice") }
            switch (name, pair.count) {
            case ("server_no_context_takeover", 1): parameters.serverNoContextTakeover = true
            case ("client_no_context_takeover", 1): parameters.clientNoContextTakeover = true
            case ("server_max_window_bits", 2):
                let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                guard let bits = Int(value), (8...15).contains(bits) else { return refuse("server_max_window_bits=\(pair[1]) is not 8 to 15") }
                parameters.serverMaxWindowBits = bits
            default:
                // client_max_window_bits among them: it may answer only an offer of it.
                return refuse("permessage-deflate parameter \(item) was not offered")
            }
        }
        return .success(parameters)
    }

    /// A message's payload compressed, without the trailing empty block's `00 00 FF FF`.
    func compress(_ payload: Data) -> Data? {
        // A sync flush with no new input has nothing to flush (zlib answers Z_BUF_ERROR): an
        // empty message is the one-byte empty block RFC 7692 §7.2.3.6 allows.
        if payload.isEmpty { return Data([0]) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var status = Z_OK
        payload.withUnsafeBytes { input in
            deflater.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            deflater.pointee.avail_in = uInt(input.count)
            repeat {
                chunk.withUnsafeMutableBufferPointer { buffer in
                    deflater.pointee.next_out = buffer.baseAddress
                    deflater.pointee.avail_out = uInt(buffer.count)
                    status = deflate(deflater, Z_SYNC_FLUSH)
                    output.append(buffer.baseAddress!, count: buffer.count - Int(deflater.pointee.avail_out))
                }
            } while status == Z_OK && deflater.pointee.avail_out == 0
            deflater.pointee.next_in = nil
        }
        guard status == Z_OK || status == Z_BUF_ERROR, output.count >= 4, output.suffix(4) == Data([0, 0, 0xFF, 0xFF]) else { return nil }
        if parameters.clientNoContextTakeover { deflateReset(deflater) }
        return output.dropLast(4)
    }

    /// Inflates one frame's compressed bytes (the message's last frame also inflates the
    /// trailing block) onto `output`, refusing to grow it past `limit`.
    func decompress(_ bytes: Data, last: Bool, into output: inout Data, limit: Int) throws(WebSocketProtocolError) {
        try inflate(bytes, into: &output, limit: limit)
        if last {
            try inflate(Data([0, 0, 0xFF, 0xFF]), into: &output, limit: limit)
            if parameters.serverNoContextTakeover { inflateReset(inflater) }
        }
    }

    private func inflate(_ bytes: Data, into output: inout Data, limit: Int) throws(WebSocketProtocolError) {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var failure: WebSocketProtocolError?
        bytes.withUnsafeBytes { input in
            inflater.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            inflater.pointee.avail_in = uInt(input.count)
            while failure == nil {
                let produced = chunk.withUnsafeMutableBufferPointer { buffer -> Int in
                    inflater.pointee.next_out = buffer.baseAddress
                    inflater.pointee.avail_out = uInt(buffer.count)
                    let status = CZlib.inflate(inflater, Z_SYNC_FLUSH)
                    if status != Z_OK && status != Z_BUF_ERROR && status != Z_STREAM_END {
                        failure = WebSocketProtocolError(code: .invalidFramePayloadData, reason: "a compressed message that does not inflate")
                    }
                    let count = buffer.count - Int(inflater.pointee.avail_out)
                    if output.count + count > limit {
                        failure = WebSocketProtocolError(code: .messageTooBig, reason: "a message over the limit of \(limit) bytes once inflated")
                        return 0
                    }
                    output.append(buffer.baseAddress!, count: count)
                    return count
                }
                // Done when the input is used up and the output had room to spare.
                if inflater.pointee.avail_in == 0, inflater.pointee.avail_out > 0 { break }
                if produced == 0, inflater.pointee.avail_in > 0, failure == nil {
                    failure = WebSocketProtocolError(code: .invalidFramePayloadData, reason: "a compressed message that does not inflate")
                }
            }
            inflater.pointee.next_in = nil
        }
        if let failure { throw failure }
    }
}
