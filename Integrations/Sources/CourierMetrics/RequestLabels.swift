import Courier
import Foundation

/// The `method`, `host` and `operation` labels of the requests in flight, by request id, from
/// their `started` event until their last one. Owned by the one task that reads the request events.
struct RequestLabels {
    struct Request {
        let method: String
        let host: String
        /// The call's operation name, if it has one (``RequestOptions/operationName``).
        var operation: String? = nil
        var dimensions: [(String, String)] {
            [("method", method), ("host", host)] + (operation.map { [("operation", $0)] } ?? [])
        }
    }

    /// What a request with no `started` event seen is labelled (the buffer dropped it).
    static let unknown = Request(method: "_OTHER", host: "_other")
    /// The standard methods; any other is `_OTHER`, as OpenTelemetry's conventions say.
    static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"]
    /// Requests in flight; bounded: past this many (their end events lost) the oldest go.
    static let maxInFlight = 10_000

    let maxHosts: Int
    /// At most this many distinct operation names; later ones are labelled `_other`.
    let maxOperations: Int
    private var hosts: Set<String> = []
    private var operations: Set<String> = []
    private var inFlight: [RequestID: Request] = [:]

    init(maxHosts: Int, maxOperations: Int = 256) {
        self.maxHosts = maxHosts
        self.maxOperations = maxOperations
    }

    mutating func start(_ id: RequestID, method: HTTPMethod, url: String, operation: String? = nil) {
        let method = Self.methods.contains(method.rawValue) ? method.rawValue : "_OTHER"
        let host = host(of: url)
        if inFlight.count >= Self.maxInFlight {
            let keep = UInt64(Self.maxInFlight / 2)
            let oldest = id.rawValue > keep ? id.rawValue - keep : 0
            inFlight = inFlight.filter { $0.key.rawValue > oldest }
        }
        inFlight[id] = Request(method: method, host: host, operation: operation.map { self.operation($0) })
    }

    /// The `host` label of `url`: its host while fewer than ``maxHosts`` were seen, else `_other`.
    mutating func host(of url: String) -> String {
        var host = URL(string: url)?.host?.lowercased() ?? "_other"
        if !hosts.contains(host) {
            if hosts.count < maxHosts { hosts.insert(host) } else { host = "_other" }
        }
        return host
    }

    /// The `operation` label of `name`: itself while fewer than ``maxOperations`` were seen, else `_other`.
    mutating func operation(_ name: String) -> String {
        if operations.contains(name) { return name }
        guard operations.count < maxOperations else { return "_other" }
        operations.insert(name)
        return name
    }

    func peek(_ id: RequestID) -> Request { inFlight[id] ?? Self.unknown }

    mutating func finish(_ id: RequestID) -> Request { inFlight.removeValue(forKey: id) ?? Self.unknown }
}
