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
    }

    var quick = false
    var jsonPath: String?
    var url: URL?
    /// `--download-url URL`: the large body `--url`'s download rows fetch. Default
    /// `/files/100MiB.bin` on `--url`'s server.
    var downloadURL: URL?
    /// `--downloads-only` (with `--url`): the download rows alone.
    var downloadsOnly = false
    /// `--profile PATH`: run one path only, for callgrind.
    var profile: ProfilePath?
    /// `--requests N` (with `--profile`). Default 20,000.
    var requests = 20_000
    /// `--concurrency N` (with `--profile`). Default 64.
    var concurrency = 64

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
            case "--downloads-only": options.downloadsOnly = true
            case "--profile":
                guard let name = iterator.next(), let path = ProfilePath(rawValue: name) else {
                    fail("--profile needs pipeline, pipeline-new-urls, baseline, floor, cache-hit, cache-miss, offline, graphql, graphql-post, transport or raw-curl")
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
                           courier-bench --profile pipeline|baseline|cache-hit|cache-miss|offline|graphql|graphql-post|transport|raw-curl [--requests N] [--concurrency N] [--url URL]
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
