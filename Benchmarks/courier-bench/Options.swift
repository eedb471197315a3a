import Courier
import Foundation

/// The command line.
struct Options {
    /// Which path `--profile` runs.
    enum ProfilePath: String {
        case pipeline
        /// The pipeline sending the cache-miss path's requests (a new URL each), cache off.
        case pipelineNewURLs = "pipeline-new-urls"
        case baseline
        /// The baseline plus one ask that the pipeline's actor answers at once: the least the
        /// actor design adds to a request.
        case floor
        case cacheHit = "cache-hit"
        case cacheMiss = "cache-miss"
        /// Durable enqueues by 64 concurrent enqueuers, then their drain.
        case offline
        /// `client.graphQL.fetch` on the in-memory server (`graphql-post`: the same POST raw).
        case graphQL = "graphql"
        case graphQLPost = "graphql-post"
        /// `CurlTransport.send` + decode against `--url`.
        case transport
        /// The raw libcurl multi loop against `--url` (the transport's floor).
        case rawCurl = "raw-curl"
        /// `client.webSocket` echoing `--message-bytes` messages, one in flight, against the
        /// loopback echo server (`websocket-raw`: the raw libcurl loop the same way).
        case webSocket = "websocket"
        case webSocketRaw = "websocket-raw"
        /// The raw loop behind a task's two hand-offs (`HandedOffWebSocket`).
        case webSocketHandOff = "websocket-handoff"
        /// Issue 38's scenarios (slow tail with hedging, outage with a breaker) in real time, in
        /// memory (`ResilienceScenarios`); `--quick` shortens them.
        case resilience
        /// Issue 37's normalized-cache rows, in memory (`GraphQLRecordsBench`): a cached read
        /// against a plain decode, a write's time to its watcher, memory per record.
        case graphQLRecords = "graphql-records"
    }

    /// The parts of a run against a server (`--only`).
    enum Section: String, CaseIterable {
        /// `--url`'s closed-loop rows at c = 16, 64, 256.
        case requests
        /// `--url`'s open-loop rows at 50 % and 80 % of raw libcurl's maximum rate.
        case fixedRate = "fixed-rate"
        /// `--h2-url`'s rows.
        case http2 = "h2"
        /// `--url`'s download rows.
        case downloads
        /// The WebSocket echo rows (their own loopback server; `--only websocket` needs no `--url`).
        case websocket
    }

    var quick = false
    var jsonPath: String?
    var url: URL?
    /// `--download-url URL`: the large body `--url`'s download rows fetch. Default
    /// `/files/100MiB.bin` on `--url`'s server.
    var downloadURL: URL?
    /// `--h2-url URL`: an `https` URL served over HTTP/2 (the repository's `nginx-h2.conf`),
    /// for the HTTP/2 rows.
    var h2URL: URL?
    /// `--h2-ca-file PATH`: a PEM file of roots that `--h2-url`'s certificate chains to,
    /// trusted besides the system's.
    var h2CAFile: String?
    /// The sections of a `--url`/`--h2-url` run: all of them, or what `--only` names.
    var sections: Set<Section> = Set(Section.allCases)
    /// `--self-test`: check the benchmark's own instruments (the latency histogram, the
    /// fixed-rate schedule) and exit.
    var selfTest = false
    /// `--profile PATH`: run one path only, for callgrind.
    var profile: ProfilePath?
    /// `--requests N` (with `--profile`). Default 20,000.
    var requests = 20_000
    /// `--concurrency N` (with `--profile`). Default 64.
    var concurrency = 64
    /// `--message-bytes N` (with `--profile websocket|websocket-raw`). Default 64.
    var messageBytes = 64
    /// `--websocket-echo-server`: be the WebSocket rows' echo server (print its port, serve
    /// until standard input closes).
    var webSocketEchoServer = false
    /// `--websocket-port N`: the WebSocket rows and profiles use an echo server already running
    /// on this loopback port instead of starting one (under valgrind, which cannot start it).
    var webSocketPort: Int?

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--quick": options.quick = true
            case "--json":
                guard let path = iterator.next() else { fail("--json needs a path") }
                options.jsonPath = path
            case "--url":
                guard let text = iterator.next(), let url = URL(string: text), url.host != nil,
                      ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                    fail("--url needs an absolute http(s) URL")
                }
                options.url = url
            case "--download-url":
                guard let text = iterator.next(), let url = URL(string: text), url.host != nil,
                      ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                    fail("--download-url needs an absolute http(s) URL")
                }
                options.downloadURL = url
            case "--downloads-only": options.sections = [.downloads]
            case "--only":
                let names = (iterator.next() ?? "").split(separator: ",").map(String.init)
                let sections = names.compactMap(Section.init(rawValue:))
                guard !sections.isEmpty, sections.count == names.count else {
                    fail("--only needs a comma-separated list of \(Section.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                options.sections = Set(sections)
            case "--h2-url":
                guard let text = iterator.next(), let url = URL(string: text), url.host != nil, url.scheme?.lowercased() == "https" else {
                    fail("--h2-url needs an absolute https URL")
                }
                options.h2URL = url
            case "--h2-ca-file":
                guard let path = iterator.next(), FileManager.default.isReadableFile(atPath: path) else {
                    fail("--h2-ca-file needs a readable PEM file")
                }
                options.h2CAFile = path
            case "--self-test": options.selfTest = true
            case "--websocket-echo-server": options.webSocketEchoServer = true
            case "--websocket-port":
                guard let text = iterator.next(), let port = Int(text), (1...65_535).contains(port) else { fail("--websocket-port needs a port") }
                options.webSocketPort = port
            case "--message-bytes":
                guard let text = iterator.next(), let count = Int(text), count > 0, count <= 16 << 20 else { fail("--message-bytes needs a size up to 16 MiB") }
                options.messageBytes = count
            case "--profile":
                guard let name = iterator.next(), let path = ProfilePath(rawValue: name) else {
                    fail("--profile needs pipeline, pipeline-new-urls, baseline, floor, cache-hit, cache-miss, offline, graphql, graphql-post, transport, raw-curl, websocket, websocket-raw, websocket-handoff, resilience or graphql-records")
                }
                options.profile = path
            case "--requests":
                guard let text = iterator.next(), let count = Int(text), count >= 0 else { fail("--requests needs a count") }
                options.requests = count
            case "--concurrency":
                guard let text = iterator.next(), let count = Int(text), count > 0 else { fail("--concurrency needs a count") }
                options.concurrency = count
            case "--help", "-h":
                print("""
                    usage: courier-bench [--quick] [--json PATH] [--url URL [--download-url URL] [--downloads-only]]
                                         [--h2-url HTTPS-URL [--h2-ca-file PEM]] [--only requests,fixed-rate,h2,downloads,websocket]
                           courier-bench --self-test
                           courier-bench --profile pipeline|baseline|cache-hit|cache-miss|offline|graphql|graphql-post|transport|raw-curl [--requests N] [--concurrency N] [--url URL]
                           courier-bench --profile websocket|websocket-raw|websocket-handoff [--requests N] [--message-bytes N] [--websocket-port N]
                           courier-bench --profile resilience [--quick]
                           courier-bench --profile graphql-records [--quick]
                           courier-bench --websocket-echo-server   # the WebSocket rows' echo server alone; prints its port
                    """)
                exit(0)
            default: fail("unknown argument \(argument) (try --help)")
            }
        }
        return options
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("courier-bench: \(message)\n".utf8))
    exit(2)
}
