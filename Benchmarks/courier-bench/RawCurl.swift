#if canImport(CCurl)
import CCurl
import Foundation

/// The floor of Courier's libcurl transport: libcurl's multi interface driven directly by one
/// thread, no Courier type and no Swift task on the way. `concurrency` transfers are kept in
/// flight: as one finishes, its body is decoded and its handle started again, on the same
/// thread. The easy handles are set up once (URL, the same header fields and `Accept-Encoding`
/// as the transport sends, a write callback that appends to a buffer; over HTTP/2 the same
/// version and multiplexing as the transport's).
enum RawCurl {
    /// What the loop sends, and how.
    struct Target: Sendable {
        let url: URL
        /// Header fields, as `Name: value` lines.
        let headers: [String]
        /// HTTP/2 over TLS, requests multiplexed on shared connections (`CURLPIPE_MULTIPLEX`,
        /// waiting for a connection to multiplex on rather than opening another), as
        /// ``CurlTransport`` asks for it over `https`.
        var http2 = false
        /// A PEM file of the roots to trust (`CURLOPT_CAINFO`, the system's not loaded), as a C
        /// program on libcurl would set it: libcurl then keeps the parsed store for the multi
        /// handle's later connections.
        var caFile: String?
    }

    static func measure(_ target: Target, requests: Int, concurrency: Int) async -> Measurement {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: run(target, requests: requests, concurrency: concurrency))
            }
            thread.start()
        }
    }

    /// One easy handle set up for the target, its buffer (the write callback appends to it)
    /// and its timing.
    final class Transfer {
        let easy: UnsafeMutableRawPointer
        var body = Data()
        var started = ContinuousClock.now
        /// When the fixed-rate runs' schedule had it due (``MonotonicTime`` nanoseconds).
        var due: UInt64 = 0

        init(_ target: Target, headers: UnsafeMutablePointer<curl_slist>?) {
            let easy = curl_easy_init()!
            self.easy = easy
            _ = target.url.absoluteString.withCString { courier_easy_set_pointer(easy, CURLOPT_URL, $0) }
            _ = courier_easy_set_long(easy, CURLOPT_NOSIGNAL, 1)
            // Compressed responses asked for, as CurlTransport does: the same request bytes.
            _ = "".withCString { courier_easy_set_pointer(easy, CURLOPT_ACCEPT_ENCODING, $0) }
            _ = courier_easy_set_pointer(easy, CURLOPT_HTTPHEADER, headers)
            _ = courier_easy_set_write_function(easy, CURLOPT_WRITEFUNCTION, RawCurl.write)
            if target.http2 {
                _ = courier_easy_set_long(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
                _ = courier_easy_set_long(easy, CURLOPT_PIPEWAIT, 1)
            }
            if let file = target.caFile {
                // libcurl copies the string.
                _ = file.withCString { courier_easy_set_pointer(easy, CURLOPT_CAINFO, $0) }
            }
            _ = courier_easy_set_pointer(easy, CURLOPT_WRITEDATA, Unmanaged.passUnretained(self).toOpaque())
            _ = courier_easy_set_pointer(easy, CURLOPT_PRIVATE, Unmanaged.passUnretained(self).toOpaque())
        }

        /// Frees the handle; call after the multi handle is cleaned up.
        func cleanup() {
            curl_easy_cleanup(easy)
        }

        /// The transfer a finished message of the multi handle is about.
        static func of(_ easy: UnsafeMutableRawPointer) -> Transfer {
            var pointer: UnsafeMutableRawPointer?
            _ = courier_easy_get_pointer(easy, CURLINFO_PRIVATE, &pointer)
            return Unmanaged<Transfer>.fromOpaque(pointer!).takeUnretainedValue()
        }
    }

    private static let write: curl_write_callback = { buffer, size, count, context in
        let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
        transfer.body.append(UnsafeRawBufferPointer(start: buffer, count: size * count).assumingMemoryBound(to: UInt8.self))
        return size * count
    }

    /// A multi handle for `target`, at most `maxConnections` connections to its host (as the
    /// transport's `maxPerHost`).
    static func makeMulti(_ target: Target, maxConnections: Int) -> UnsafeMutableRawPointer {
        _ = curl_global_init(Int(CURL_GLOBAL_ALL))
        let multi = curl_multi_init()!
        _ = courier_multi_set_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxConnections)
        _ = courier_multi_set_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        return multi
    }

    /// The target's header fields as libcurl's list (free it with `curl_slist_free_all`).
    static func headerList(_ target: Target) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for header in target.headers { list = curl_slist_append(list, header) }
        return list
    }

    /// Whether a finished transfer succeeded: libcurl's result, then the body decoded.
    static func succeeded(_ message: UnsafeMutablePointer<CURLMsg>, _ transfer: Transfer, _ decoder: JSONDecoder) -> Bool {
        message.pointee.data.result == CURLE_OK && (try? decoder.decode(User.self, from: transfer.body)) != nil
    }

    private static func run(_ target: Target, requests: Int, concurrency: Int) -> Measurement {
        let multi = makeMulti(target, maxConnections: concurrency)
        let decoder = JSONDecoder()
        let list = headerList(target)
        let transfers = (0..<min(concurrency, requests)).map { _ in Transfer(target, headers: list) }
        var latencies: [Duration] = []
        latencies.reserveCapacity(requests)
        var started = 0, failures = 0
        let clock = ContinuousClock()
        let usageBefore = ProcessUsage.now
        let start = clock.now
        for transfer in transfers {
            transfer.started = clock.now
            curl_multi_add_handle(multi, transfer.easy)
            started += 1
        }
        var running: Int32 = 0
        while latencies.count < requests {
            curl_multi_perform(multi, &running)
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let transfer = Transfer.of(easy)
                if !succeeded(message, transfer, decoder) { failures += 1 }
                latencies.append(clock.now - transfer.started)
                curl_multi_remove_handle(multi, easy)
                if started < requests {
                    transfer.body.removeAll(keepingCapacity: true)
                    transfer.started = clock.now
                    curl_multi_add_handle(multi, easy)
                    started += 1
                }
            }
            if latencies.count < requests { curl_multi_poll(multi, nil, 0, 1000, nil) }
        }
        let elapsed = clock.now - start
        let usage = ProcessUsage.now - usageBefore
        curl_multi_cleanup(multi)
        for transfer in transfers { transfer.cleanup() }
        curl_slist_free_all(list)
        var measurement = Measurement(requests: requests, failures: failures, elapsed: elapsed, latencies: latencies.sorted())
        measurement.usage = usage
        return measurement
    }
}
#endif
