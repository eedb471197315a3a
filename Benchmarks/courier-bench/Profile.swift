import Foundation

/// One path, one concurrency, a given number of requests, and nothing else: what to run under
/// `valgrind --tool=callgrind` to count instructions per request (steady whatever the machine's
/// load). Warm-up requests run first; callgrind's totals include them, so subtract a run with
/// `--requests 0` (warm-up only) to get the cost of the measured requests alone.
struct Profile {
    let options: Options
    let path: Options.ProfilePath

    func run() async {
        if path == .offline {
            let result = await OfflineThroughput.measure(concurrentWrites: options.requests, sequentialWrites: 0)
            print(String(
                format: "profile: offline, %d writes by 64 enqueuers: %.0f durable enqueues/s, drain %.0f items/s, %d failed",
                options.requests, result.concurrentPerSecond, result.drainPerSecond, result.failures))
            return
        }
        if path == .resilience {
            await ResilienceScenarios.run(quick: options.quick)
            return
        }
        if path == .graphQLRecords {
            await GraphQLRecordsBench.run(quick: options.quick, readRounds: CommandLine.arguments.contains("--requests") ? options.requests : nil)
            return
        }
        if path == .graphQL || path == .graphQLPost {
            await GraphQLComparison.profile(graphQL: path == .graphQL, requests: options.requests, concurrency: options.concurrency)
            return
        }
        if path == .webSocket || path == .webSocketRaw || path == .webSocketHandOff {
            await WebSocketComparison.profile(path, messages: options.requests, messageBytes: options.messageBytes, port: options.webSocketPort)
            return
        }
        if path == .transport || path == .rawCurl {
            guard let url = options.url else { fail("--profile \(path.rawValue) needs --url") }
            await TransportComparison.profile(path, url: url, caFile: options.h2CAFile, requests: options.requests, concurrency: options.concurrency)
            return
        }
        let scenario = Scenario(url: options.url)
        let operation = switch path {
        case .pipeline: scenario.piped
        case .pipelineNewURLs: scenario.pipedNewURLs
        case .baseline: scenario.raw
        case .floor: scenario.floor
        case .cacheHit: scenario.cacheHit
        case .cacheMiss: scenario.cacheMiss
        case .offline, .transport, .rawCurl, .graphQL, .graphQLPost, .webSocket, .webSocketRaw, .webSocketHandOff, .resilience, .graphQLRecords: scenario.raw   // handled above
        }
        _ = await measure(requests: 1_000, concurrency: options.concurrency, operation)
        let before = (try? await scenario.client.pipelineStats().messagesHandled) ?? 0
        let result = await measure(requests: options.requests, concurrency: options.concurrency, operation)
        let after = (try? await scenario.client.pipelineStats().messagesHandled) ?? 0
        await scenario.client.shutdown()
        await scenario.cachingClient.shutdown()
        let messages = options.requests > 0 ? Double(after - before - 1) / Double(options.requests) : 0
        print(String(
            format: "profile: %@ path, %d requests at concurrency %d (+1000 warm-up), %d failed, %.2f msgs/req",
            path.rawValue, options.requests, options.concurrency, result.failures, messages))
    }
}
