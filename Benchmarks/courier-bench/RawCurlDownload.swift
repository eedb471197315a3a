#if canImport(CCurl)
import CCurl
import Foundation

/// The floor of a download over Courier's libcurl transport: one easy handle in libcurl's multi
/// interface, driven directly by one thread, its write callback counting the bytes and
/// discarding them. Downloads run one after another on the same handle (its connection kept),
/// with the same `Accept-Encoding` as the transport sends.
enum RawCurlDownload {
    /// Downloads `url` `downloads` times; a download that fails, answers other than 200 or
    /// brings other than `expectedBytes` bytes (when given) counts as a failure.
    static func measure(url: URL, downloads: Int, expectedBytes: Int?) async -> (Measurement, bytes: Int) {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: run(url: url, downloads: downloads, expectedBytes: expectedBytes))
            }
            thread.start()
        }
    }

    /// The bytes the current download received.
    private final class Counter {
        var bytes = 0
    }

    private static let write: curl_write_callback = { _, size, count, context in
        Unmanaged<Counter>.fromOpaque(context!).takeUnretainedValue().bytes += size * count
        return size * count
    }

    private static func run(url: URL, downloads: Int, expectedBytes: Int?) -> (Measurement, bytes: Int) {
        _ = curl_global_init(Int(CURL_GLOBAL_ALL))
        let multi = curl_multi_init()!
        let easy = curl_easy_init()!
        let counter = Counter()
        _ = url.absoluteString.withCString { courier_easy_set_pointer(easy, CURLOPT_URL, $0) }
        _ = courier_easy_set_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = "".withCString { courier_easy_set_pointer(easy, CURLOPT_ACCEPT_ENCODING, $0) }
        _ = courier_easy_set_write_function(easy, CURLOPT_WRITEFUNCTION, write)
        _ = courier_easy_set_pointer(easy, CURLOPT_WRITEDATA, Unmanaged.passUnretained(counter).toOpaque())
        var latencies: [Duration] = []
        var failures = 0, lastBytes = 0
        let clock = ContinuousClock()
        let usageBefore = ProcessUsage.now
        let start = clock.now
        for _ in 0..<downloads {
            counter.bytes = 0
            let began = clock.now
            curl_multi_add_handle(multi, easy)
            var running: Int32 = 1
            var result = CURLE_OK
            while running > 0 {
                curl_multi_perform(multi, &running)
                if running > 0 { curl_multi_poll(multi, nil, 0, 1000, nil) }
            }
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi, &remaining) {
                if message.pointee.msg == CURLMSG_DONE { result = message.pointee.data.result }
            }
            var status = 0
            _ = courier_easy_get_long(easy, CURLINFO_RESPONSE_CODE, &status)
            curl_multi_remove_handle(multi, easy)
            if result != CURLE_OK || status != 200 || (expectedBytes.map { $0 != counter.bytes } ?? false) { failures += 1 }
            lastBytes = counter.bytes
            latencies.append(clock.now - began)
        }
        let elapsed = clock.now - start
        let usage = ProcessUsage.now - usageBefore
        curl_easy_cleanup(easy)
        curl_multi_cleanup(multi)
        var measurement = Measurement(requests: downloads, failures: failures, elapsed: elapsed, latencies: latencies.sorted())
        measurement.usage = usage
        return (measurement, lastBytes)
    }
}
#endif
