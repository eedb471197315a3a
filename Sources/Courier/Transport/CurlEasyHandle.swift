#if canImport(CCurl)
import CCurl
import Foundation

/// One libcurl easy handle, kept in the event loop's pool and used by one exchange at a time,
/// with the TLS check its connections' handshakes write to.
///
/// Threads: a caller that takes it from the pool configures it (``prepare(_:for:)``) before
/// handing it to the loop; from then on only the loop's thread touches it, until it is back in
/// the pool. The pool hands it from one to the other under its lock.
final class CurlEasyHandle: @unchecked Sendable {
    // Invariant: used by one thread at a time, as above. `tlsCheck` lives as long as the
    // handle, which lives as long as the loop's multi handle: a connection this handle set up
    // keeps a pointer to it (its TLS context's verification callback), and connections close
    // with the multi handle, before handles are freed.
    let easy: UnsafeMutableRawPointer
    private let tlsCheck: UnsafeMutablePointer<courier_tls_check>
    /// libcurl's message for the last transfer's failure (`CURLOPT_ERRORBUFFER`), with its
    /// detail ("… in chunked-encoding"), where `curl_easy_strerror` has only the code's.
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

    /// The last transfer's failure as libcurl wrote it, if it wrote one.
    var errorMessage: String? {
        errorBuffer.pointee == 0 ? nil : String(cString: errorBuffer)
    }

    /// Sets every option of `request`'s exchange, from a clean handle. Throws
    /// ``NetworkError/invalidRequest(_:)`` if libcurl refuses one.
    func prepare(_ request: HTTPRequest, for exchange: CurlExchange, settings: CurlSettings) throws(NetworkError) {
        curl_easy_reset(easy)
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
        // `curl_easy_reset` forgets the buffer; libcurl writes it only when a transfer fails.
        errorBuffer.pointee = 0
        set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
        set(CURLOPT_URL, request.url.absoluteString)
        set(CURLOPT_PRIVATE, pointer: Unmanaged.passUnretained(self).toOpaque())
        _ = courier_easy_set_write_function(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback)
        set(CURLOPT_HEADERDATA, pointer: context)
        _ = courier_easy_set_write_function(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback)
        set(CURLOPT_WRITEDATA, pointer: context)
        set(CURLOPT_TIMEOUT_MS, (request.timeout ?? settings.exchangeTimeout).wholeMilliseconds)
        set(CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeout.wholeMilliseconds)
        set(CURLOPT_FOLLOWLOCATION, 0)

        // The method and body. A body is sent as a POST's (from memory: copied by libcurl, so a
        // resend needs nothing from Courier; from a stream: read as it is sent), under the
        // request's method.
        let method = request.method.rawValue
        if let body = request.body {
            set(CURLOPT_POST, 1)
            _ = courier_easy_set_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            body.withUnsafeBytes { set(CURLOPT_COPYPOSTFIELDS, pointer: $0.count == 0 ? UnsafeRawPointer(bitPattern: 1) : $0.baseAddress) }
            if method != "POST" { set(CURLOPT_CUSTOMREQUEST, method) }
        } else if let stream = request.bodyStream {
            set(CURLOPT_POST, 1)
            _ = courier_easy_set_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(stream.length ?? -1))
            _ = courier_easy_set_read_function(easy, curlReadCallback)
            set(CURLOPT_READDATA, pointer: context)
            _ = courier_easy_set_seek_function(easy, curlSeekCallback)
            set(CURLOPT_SEEKDATA, pointer: context)
            if method != "POST" { set(CURLOPT_CUSTOMREQUEST, method) }
        } else if request.method == .head {
            set(CURLOPT_NOBODY, 1)
        } else if method == "POST" || method == "PUT" || method == "PATCH" {
            // An empty body, sent with `Content-Length: 0` as servers expect of these methods.
            set(CURLOPT_POST, 1)
            _ = courier_easy_set_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, 0)
            set(CURLOPT_POSTFIELDS, pointer: UnsafeRawPointer(("" as StaticString).utf8Start))
            if method != "POST" { set(CURLOPT_CUSTOMREQUEST, method) }
        } else if method != "GET" {
            set(CURLOPT_CUSTOMREQUEST, method)
        }

        // Header fields: the request's, then empty ones that remove what libcurl would add on
        // its own (a form Content-Type on POST bodies, `Expect: 100-continue` on large ones).
        var list: UnsafeMutablePointer<curl_slist>?
        var hasContentType = false, hasExpect = false, hasAcceptEncoding = false
        for field in request.headers {
            // `Name;` is libcurl's way to send a field with an empty value (`Name:` removes it).
            list = curl_slist_append(list, field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
            if HTTPSyntax.equalsIgnoringASCIICase(field.name, "Content-Type") { hasContentType = true }
            if HTTPSyntax.equalsIgnoringASCIICase(field.name, "Expect") { hasExpect = true }
            if HTTPSyntax.equalsIgnoringASCIICase(field.name, "Accept-Encoding") { hasAcceptEncoding = true }
        }
        if !hasContentType { list = curl_slist_append(list, "Content-Type:") }
        if !hasExpect { list = curl_slist_append(list, "Expect:") }
        exchange.headerList = list
        set(CURLOPT_HTTPHEADER, pointer: UnsafeRawPointer(list))

        if settings.decompression && !hasAcceptEncoding {
            set(CURLOPT_ACCEPT_ENCODING, "")
        } else {
            set(CURLOPT_HTTP_CONTENT_DECODING, 0)
        }

        let origin = request.origin
        if origin?.scheme == "https" {
            set(CURLOPT_HTTP_VERSION, settings.http2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1)
            if settings.http2 { set(CURLOPT_PIPEWAIT, 1) }
            set(CURLOPT_SSLVERSION, settings.minimumTLSVersion)
            if let client = settings.clientCertificate {
                set(CURLOPT_SSLCERT, client.certificateFile)
                set(CURLOPT_SSLKEY, client.keyFile)
                if let password = client.keyPassword { set(CURLOPT_KEYPASSWD, password) }
            }
            let pins = settings.pins.pins(for: origin?.host ?? "")
            if !pins.isEmpty || settings.extraRoots != nil {
                try installTLSCheck(pins: pins, extraRoots: settings.extraRoots)
            }
        } else {
            set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        }
        if let proxy = settings.proxy { set(CURLOPT_PROXY, proxy) }

        if let failed {
            throw .invalidRequest("libcurl refused option \(failed.rawValue) for this request")
        }
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
        tlsCheck.pointee = courier_tls_check()
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
    return exchange.receiveBody(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
}

private let curlReadCallback: curl_read_callback = { buffer, size, count, context in
    let exchange = Unmanaged<CurlExchange>.fromOpaque(context!).takeUnretainedValue()
    let read = exchange.readBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
    return read ?? Int(CURL_READFUNC_ABORT)
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
