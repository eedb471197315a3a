#if canImport(CCurl)
import CCurl
import Foundation

/// The floor of Courier's libcurl transport: libcurl's multi interface driven directly by one
/// thread, no Courier type and no Swift task on the way. `concurrency` transfers are kept in
/// flight: as one finishes, its body is decoded and its handle started again, on the same
/// thread. The easy handles are set up once (URL, the same header fields and `Accept-Encoding`
/// as the transport sends, a write callback that appends to a buffer).
enum RawCurl {
    static func measure(url: URL, headers: HTTPHeadersList, requests: Int, concurrency: Int) async -> Measurement {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: run(url: url, headers: headers, requests: requests, concurrency: concurrency))
            }
            thread.start()
        }
    }

    typealias HTTPHeadersList = [String]

    /// One transfer's buffer; the handle's write callback appends to it.
    private final class Transfer {
        let easy: UnsafeMutableRawPointer
        var body = Data()
        var started = ContinuousClock.now
        init(easy: UnsafeMutableRawPointer) { self.easy = easy }
    }

    private static let write: curl_write_callback = { buffer, size, count, context in
        let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
        transfer.body.append(UnsafeRawBufferPointer(start: buffer, count: size * count).assumingMemoryBound(to: UInt8.self))
        return size * count
    }

    private static func run(url: URL, headers: [String], requests: Int, concurrency: Int) -> Measurement {
        _ = curl_global_init(Int(CURL_GLOBAL_ALL))
        let multi = curl_multi_init()!
        let decoder = JSONDecoder()
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers { list = curl_slist_append(list, header) }
        let transfers = (0..<min(concurrency, requests)).map { _ in Transfer(easy: curl_easy_init()!) }
        for transfer in transfers {
            _ = url.absoluteString.withCString { courier_easy_set_pointer(transfer.easy, CURLOPT_URL, $0) }
            _ = courier_easy_set_long(transfer.easy, CURLOPT_NOSIGNAL, 1)
            // Compressed responses asked for, as CurlTransport does: the same request bytes.
            _ = "".withCString { courier_easy_set_pointer(transfer.easy, CURLOPT_ACCEPT_ENCODING, $0) }
            _ = courier_easy_set_pointer(transfer.easy, CURLOPT_HTTPHEADER, list)
            _ = courier_easy_set_write_function(transfer.easy, CURLOPT_WRITEFUNCTION, write)
            _ = courier_easy_set_pointer(transfer.easy, CURLOPT_WRITEDATA, Unmanaged.passUnretained(transfer).toOpaque())
            _ = courier_easy_set_pointer(transfer.easy, CURLOPT_PRIVATE, Unmanaged.passUnretained(transfer).toOpaque())
        }
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
                var pointer: UnsafeMutableRawPointer?
                _ = courier_easy_get_pointer(easy, CURLINFO_PRIVATE, &pointer)
                let transfer = Unmanaged<Transfer>.fromOpaque(pointer!).takeUnretainedValue()
                if message.pointee.data.result != CURLE_OK || (try? decoder.decode(User.self, from: transfer.body)) == nil {
                    failures += 1
                }
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
        for transfer in transfers { curl_easy_cleanup(transfer.easy) }
        curl_multi_cleanup(multi)
        curl_slist_free_all(list)
        var measurement = Measurement(requests: requests, failures: failures, elapsed: elapsed, latencies: latencies.sorted())
        measurement.usage = usage
        return measurement
    }
}
#endif
