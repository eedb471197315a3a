import Foundation

// courier-bench: throughput and latency of Courier's request path, measured in the same run
// as a baseline (the same transport called directly, plus the same JSON decode), so the ratio
// is what to read on a shared, noisy machine.
//
//     swift run -c release courier-bench            # in-memory transport (the embedded default)
//     swift run -c release courier-bench --quick    # a short run (CI)
//     swift run -c release courier-bench --url http://127.0.0.1:8089/v1/users/42
//     swift run -c release courier-bench --url http://127.0.0.1:8089/v1/users/42 --downloads-only
//     swift run -c release courier-bench --url http://127.0.0.1:8089/v1/users/42 \
//         --h2-url https://127.0.0.1:8443/v1/users/42 --h2-ca-file /tmp/courier-nginx-h2/tls/ca.pem
//     swift run -c release courier-bench --json results.json
//     swift run -c release courier-bench --only websocket # the WebSocket echo rows alone
//     swift run -c release courier-bench --self-test     # the histogram and schedule checks (CI)
//     valgrind --tool=callgrind .build/release/courier-bench --profile pipeline --requests 20000
//     .build/release/courier-bench --websocket-echo-server &   # prints its port; valgrind cannot start it
//     valgrind --tool=callgrind .build/release/courier-bench --profile websocket --requests 20000 --websocket-port PORT
//
// The entry point is synchronous (valgrind 3.19 crashes on Swift's async `main`): the async
// work runs in a task while the main thread waits for it.
@main
enum CourierBench {
    static func main() {
        let options = Options.parse(CommandLine.arguments)
        if options.webSocketEchoServer {
            #if canImport(Glibc)
            WebSocketEchoServer.run()
            #else
            fail("the WebSocket echo server runs on Linux only")
            #endif
        }
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            if options.selfTest {
                exit(await SelfTest.run() ? 0 : 1)
            } else if let path = options.profile {
                await Profile(options: options, path: path).run()
            } else {
                await Benchmark(options: options).run()
            }
            done.signal()
        }
        done.wait()
    }
}
