#if canImport(CCurl)
import CCurl
import Foundation

/// One libcurl easy handle, kept in the event loop's pool and used by one exchange at a time,
/// with the TLS check its connections' handshakes write to.
///
/// Threads: a caller that takes it from the pool configures it (``prepare(_:origin:for:settings:)``) before
/// handing it to the loop; from then on only the loop's thread touches it, until it is back in
/// the pool. The pool hands it from one to the other under its lock.
final class CurlEasyHandle: @unchecked Sendable {
    // Invariant: used by one thread at a time, as above. `tlsCheck` lives as long as the
    // handle, which lives as long as the loop's multi handle: a connection this handle set up
    // keeps a pointer to it (its TLS context's verification callback), and connections close
    // with the multi handle, before handles are freed.
    let easy: UnsafeMutableRawPointer
    private let tlsCheck: UnsafeMutablePointer<courier_tls_check>
    /// `CURLOPT_ERRORBUFFER`: libcurl's detail of the last failure (`CURL_ERROR_SIZE` bytes).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// The exchange in progress, while the handle is in the multi handle.
    var exchange: CurlExchange?

    init?() {
        guard let easy = curl_easy_init() else { return nil }
        self.easy = easy
        tlsCheck = .allocate(capacity: 1)
        tlsCheck.initialize(to: courier_tls_check())
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        curl_easy_cleanup(easy)
        tlsCheck.deinitialize(count: 1)
        tlsCheck.deallocate()
        errorBuffer.deallocate()
    }

    /// Sets every option of `request`'s exchange, from a clean handle. Throws
    /// ``NetworkError/invalidRequest(_:)`` if libcurl refuses one.
    func prepare(_ request: HTTPRequest, origin: HTTPOrigin?, for exchange: CurlExchange, settings: CurlSettings) throws(NetworkError) {
        curl_easy_reset(easy)
        // The last handshake's results stay in the check until cleared: a pin mismatch seen by
        // this handle's previous request would otherwise be reported as the cause of any
        // failure of this one (a refused connection to an unpinned host, a plain http URL).
        // Safe to write: no connection handshakes with this check while the handle is out of
        // the multi handle.
        tlsCheck.pointee = courier_tls_check()
        self.exchange = exchange
        let context = Unmanaged.passUnretained(exchange).toOpaque()
        var failed: CURLoption?
        func set(_ option: CURLoption, _ value: Int) {
            if courier_easy_set_long(easy, option, value) != CURLE_OK { failed = option }
        }
        func set(_ option: CURLoption, _ value: String) {
            if value.withCString({ courier_easy_set_pointer(easy, option, $0) }) != CURLE_OK { failed = option }
        }
        func set(_ option: CURLoption, pointer: UnsafeRawPointer?) {
            if courier_easy_set_pointer(easy, option, pointer) != CURLE_OK { failed = option }
        }

        set(CURLOPT_NOSIGNAL, 1)
        // curl_easy_reset forgets the buffer; an empty one means no detail (yet).
        errorBuffer[0] = 0
        set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
        set(CURLOPT_URL, request.url.absoluteString)
        set(CURLOPT_PRIVATE, pointer: Unmanaged.passUnretained(self).toOpaque())
        _ = courier_easy_set_write_function(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback)
        set(CURLOPT_HEADERDATA, pointer: context)
        _ = courier_easy_set_write_function(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback)
        set(CURLOPT_WRITEDATA, pointer: context)
        if exchange.stream != nil {
            // A streamed body is received in blocks of up to half the buffer's high-water mark
            // instead of libcurl's 16 KiB: each block is one chunk for the consumer (a copy and
            // a wake-up of its task), 32 times fewer of them. A hint: an older libcurl clamps it.
            _ = courier_easy_set_long(easy, CURLOPT_BUFFERSIZE, ResponseBodyBuffer.receiveBlock)
        }
        // A streamed response has no whole-exchange limit: the event loop times its head and
        // the stalls between its chunks.
        set(CURLOPT_TIMEOUT_MS, exchange.stream == nil ? (request.timeout ?? settings.exchangeTimeout).wholeMilliseconds : 0)
        set(CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeout.wholeMilliseconds)
        set(CURLOPT_FOLLOWLOCATION, 0)
        // A proxy's answer to CONNECT is not the response: its head would be taken for the
        // start of one (and a refusal for a response cut short).
        set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)

        // The method and body. A body is sent as a POST's (from memory: copied by libcurl, so a
        // resend needs nothing from Courier; from a stream: read as it is sent), under the
        // request's method.
        let method = request.method.rawValue
        if request.method == .head {
            // First: a HEAD sent as a POST would wait for the body its answer only describes
            // (`validate()` refuses a HEAD with a body anyway).
            set(CURLOPT_NOBODY, 1)
        } else if let body = request.body, !body.isEmpty {
            set(CURLOPT_POST, 1)
            _ = courier_easy_set_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            body.withUnsafeBytes { set(CURLOPT_COPYPOSTFIELDS, pointer: $0.baseAddress) }
            if method != "POST" { set(CURLOPT_CUSTOMREQUEST, method) }
        } else if let stream = request.bodyStream {
            set(CURLOPT_POST, 1)
            _ = courier_easy_set_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(stream.length ?? -1))
            _ = courier_easy_set_read_function(easy, curlReadCallback)
            set(CURLOPT_READDATA, pointer: context)
            _ = courier_easy_set_seek_function(easy, curlSeekCallback)
            set(CURLOPT_SEEKDATA, pointer: context)
            if method != "POST" { set(CURLOPT_CUSTOMREQUEST, method) }
        } else if request.body != nil || method == "POST" || method == "PUT" || method == "PATCH" {
            // An empty body, sent with `Content-Length: 0` (as servers expect of these methods).
            set(CURLOPT_POST, 1)
            _ = courier_easy_set_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, 0)
            set(CURLOPT_POSTFIELDS, pointer: UnsafeRawPointer(("" as StaticString).utf8Start))
            if method != "POST" { set(CURLOPT_CUSTOMREQUEST, method) }
        } else if method != "GET" {
            set(CURLOPT_CUSTOMREQUEST, method)
        }

        // Header fields: the request's, then, with a body, empty ones that remove what libcurl
        // would add on its own (a form Content-Type, `Expect: 100-continue` on large bodies).
        var list: UnsafeMutablePointer<curl_slist>?
        for field in request.headers { list = Self.append(field, to: list) }
        if request.body != nil || request.bodyStream != nil || request.method == .post || request.method == .put || request.method == .patch {
            if !request.headers.contains("Content-Type") { list = curl_slist_append(list, "Content-Type:") }
            if !request.headers.contains("Expect") { list = curl_slist_append(list, "Expect:") }
        }
        exchange.headerList = list
        set(CURLOPT_HTTPHEADER, pointer: UnsafeRawPointer(list))

        // The exchange decodes unless compression is off or the caller chose its own encodings.
        if exchange.decodes {
            set(CURLOPT_ACCEPT_ENCODING, "")
        } else {
            set(CURLOPT_HTTP_CONTENT_DECODING, 0)
        }

        try setConnection(origin: origin, settings: settings, http2: settings.http2, set: set, set: set)
        if let failed {
            throw .invalidRequest("libcurl refused option \(failed.rawValue) for this request")
        }
    }

    /// Sets a WebSocket's connection, from a clean handle: libcurl connects (TCP, TLS with the
    /// pins, through the proxy's tunnel) and stops there (`CURLOPT_CONNECT_ONLY`); the
    /// handshake and the frames then go through `curl_easy_send`/`curl_easy_recv`. HTTP/1.1
    /// only (the Upgrade is HTTP/1.1's).
    func prepareConnectOnly(_ request: HTTPRequest, origin: HTTPOrigin?, settings: CurlSettings) throws(NetworkError) {
        curl_easy_reset(easy)
        tlsCheck.pointee = courier_tls_check()
        exchange = nil
        var failed: CURLoption?
        func set(_ option: CURLoption, _ value: Int) {
            if courier_easy_set_long(easy, option, value) != CURLE_OK { failed = option }
        }
        func set(_ option: CURLoption, _ value: String) {
            if value.withCString({ courier_easy_set_pointer(easy, option, $0) }) != CURLE_OK { failed = option }
        }
        set(CURLOPT_NOSIGNAL, 1)
        errorBuffer[0] = 0
        if courier_easy_set_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer) != CURLE_OK { failed = CURLOPT_ERRORBUFFER }
        set(CURLOPT_URL, request.url.absoluteString)
        set(CURLOPT_CONNECT_ONLY, 1)
        set(CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeout.wholeMilliseconds)
        set(CURLOPT_TIMEOUT_MS, (request.timeout ?? settings.exchangeTimeout).wholeMilliseconds)
        // Through an HTTP proxy, a CONNECT tunnel (plain `http` would otherwise be proxied as a
        // request, which a connect-only transfer never sends).
        set(CURLOPT_HTTPPROXYTUNNEL, 1)
        set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        try setConnection(origin: origin, settings: settings, http2: false, set: set, set: set)
        if let failed {
            throw .invalidRequest("libcurl refused option \(failed.rawValue) for this WebSocket")
        }
    }

    /// The options of the connection itself: HTTP version, TLS (version, client certificate,
    /// pins, extra roots) and proxy.
    private func setConnection(
        origin: HTTPOrigin?, settings: CurlSettings, http2: Bool, set: (CURLoption, Int) -> Void, set setText: (CURLoption, String) -> Void
    ) throws(NetworkError) {
        if origin?.scheme == "https" {
            set(CURLOPT_HTTP_VERSION, http2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1)
            if http2 { set(CURLOPT_PIPEWAIT, 1) }
            set(CURLOPT_SSLVERSION, settings.minimumTLSVersion)
            // The file alone, so that libcurl parses the roots once per multi handle (a CA
            // directory makes it parse the file again for every connection); if libcurl
            // refuses, the directory stays: slower, not less safe.
            if settings.trustsCAFileOnly { _ = courier_easy_set_pointer(easy, CURLOPT_CAPATH, nil) }
            if let client = settings.clientCertificate {
                setText(CURLOPT_SSLCERT, client.certificateFile)
                setText(CURLOPT_SSLKEY, client.keyFile)
                if let password = client.keyPassword { setText(CURLOPT_KEYPASSWD, password) }
            }
            let pins = settings.pins.pins(for: origin?.host ?? "")
            if !pins.isEmpty || settings.extraRoots != nil {
                try installTLSCheck(pins: pins, extraRoots: settings.extraRoots)
            }
        } else {
            set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        }
        if let proxy = settings.proxy { setText(CURLOPT_PROXY, proxy) }
    }

    /// Appends `Name: value` to libcurl's list (`Name;`, libcurl's way to send an empty value:
    /// `Name:` would remove the field), written once into a buffer on the stack.
    private static func append(_ field: HTTPHeaders.Field, to list: UnsafeMutablePointer<curl_slist>?) -> UnsafeMutablePointer<curl_slist>? {
        var name = field.name, value = field.value
        return name.withUTF8 { name in
            value.withUTF8 { value in
                withUnsafeTemporaryAllocation(of: CChar.self, capacity: name.count + value.count + 3) { line in
                    let bytes = UnsafeMutableRawBufferPointer(line)
                    bytes.copyMemory(from: UnsafeRawBufferPointer(name))
                    var end = name.count
                    if value.isEmpty {
                        bytes[end] = UInt8(ascii: ";")
                        end += 1
                    } else {
                        bytes[end] = UInt8(ascii: ":")
                        bytes[end + 1] = UInt8(ascii: " ")
                        UnsafeMutableRawBufferPointer(rebasing: bytes[(end + 2)...]).copyMemory(from: UnsafeRawBufferPointer(value))
                        end += 2 + value.count
                    }
                    bytes[end] = 0
                    return curl_slist_append(list, line.baseAddress)
                }
            }
        }
    }

    /// libcurl's detail of why the last transfer failed (`SSL certificate problem: unable to
    /// get local issuer certificate`), nil when it gave none.
    var failureDetail: String? {
        errorBuffer[0] == 0 ? nil : String(cString: errorBuffer)
    }

    /// What the last handshake's pin check saw, when it refused the chain: the keys, for the
    /// error message.
    var pinMismatch: [Data]? {
        let check = tlsCheck.pointee
        guard check.pin_count > 0, check.verified == 1, check.pin_matched == 0 else { return nil }
        return withUnsafeBytes(of: check.seen) { seen in
            (0..<Int(check.seen_count)).map { Data(seen[($0 * 32)..<($0 * 32 + 32)]) }
        }
    }

    /// Has this handle's connections check the chain against `pins` (and trust `extraRoots`).
    private func installTLSCheck(pins: [Data], extraRoots: UnsafePointer<CChar>?) throws(NetworkError) {
        let capacity = MemoryLayout.size(ofValue: tlsCheck.pointee.pins) / 32
        guard pins.count <= capacity else {
            throw .invalidRequest("at most \(capacity) certificate pins apply to one host, got \(pins.count)")
        }
        tlsCheck.pointee.extra_roots = extraRoots
        withUnsafeMutableBytes(of: &tlsCheck.pointee.pins) { storage in
            for (index, pin) in pins.enumerated() {
                storage[(index * 32)..<(index * 32 + 32)].copyBytes(from: pin)
            }
        }
        tlsCheck.pointee.pin_count = Int32(pins.count)
        courier_easy_set_tls_check(easy, tlsCheck)
    }
}

// libcurl's callbacks: C functions, given the exchange as their context.

private let curlHeaderCallback: curl_write_callback = { buffer, size, count, context in
    let exchange = Unmanaged<CurlExchange>.fromOpaque(context!).takeUnretainedValue()
    let length = size * count
    return exchange.receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
}

private let curlWriteCallback: curl_write_callback = { buffer, size, count, context in
    let exchange = Unmanaged<CurlExchange>.fromOpaque(context!).takeUnretainedValue()
    let length = size * count
    return exchange.receiveBody(UnsafeRawBufferPointer(start: buffer, count: length))
}

private let curlReadCallback: curl_read_callback = { buffer, size, count, context in
    let exchange = Unmanaged<CurlExchange>.fromOpaque(context!).takeUnretainedValue()
    switch exchange.readBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count)) {
    case .bytes(let count): return count
    case .pause: return Int(CURL_READFUNC_PAUSE)
    case .abort: return Int(CURL_READFUNC_ABORT)
    }
}

private let curlSeekCallback: curl_seek_callback = { context, offset, origin in
    let exchange = Unmanaged<CurlExchange>.fromOpaque(context!).takeUnretainedValue()
    guard offset == 0, origin == SEEK_SET, exchange.rewindBody() else { return CURL_SEEKFUNC_CANTSEEK }
    return CURL_SEEKFUNC_OK
}

extension Duration {
    /// The duration in whole milliseconds, rounded up (so a positive one is never 0, which
    /// libcurl reads as "no limit"), at most `Int.max`.
    var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        let milliseconds = Double(seconds) * 1000 + (Double(attoseconds) / 1e15).rounded(.up)
        return milliseconds >= Double(Int.max) ? Int.max : max(1, Int(milliseconds))
    }
}
#endif
