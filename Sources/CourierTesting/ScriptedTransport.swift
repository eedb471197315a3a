import Courier
import Foundation

/// A transport that plays back canned answers per route and records every request it got,
/// so tests assert on what would have gone over the wire.
///
/// Each route (a URL path, optionally a method) has a queue of ``Step``s served in order to
/// successive requests; the last step repeats once the queue is exhausted. Unscripted routes
/// get the fallback (404 by default). Delays run on the injected clock and, like a real
/// transport, end with ``NetworkError/timeout(_:underlying:)`` when the request's timeout is shorter;
/// a body over the request's ``HTTPRequest/maximumResponseSize`` fails with `responseTooLarge`.
public final class ScriptedTransport: HTTPTransport, Sendable {
    /// One canned answer.
    public indirect enum Step: Sendable {
        /// Answer with this response.
        case respond(HTTPResponse)
        /// Fail with this error.
        case fail(NetworkError)
        /// Wait this long on the transport's clock, then take the step.
        case delayed(Duration, Step)
        /// Never answer; end only when the request's timeout passes (`timeout`) or the calling
        /// task is cancelled (`cancelled`).
        case hang

        /// A response with this status, headers and UTF-8 body.
        public static func status(_ status: Int, headers: HTTPHeaders = [:], body: String = "") -> Step {
            .respond(HTTPResponse(status: status, headers: headers, body: Data(body.utf8)))
        }

        /// A JSON response.
        public static func json(_ json: String, status: Int = 200, headers: HTTPHeaders = [:]) -> Step {
            var headers = headers
            headers.replaceOrAdd(name: "Content-Type", value: "application/json")
            return .status(status, headers: headers, body: json)
        }
    }

    private struct Route: Hashable {
        let path: String
        let method: HTTPMethod?
    }

    private struct State {
        var scripts: [Route: [Step]] = [:]
        var served: [Route: Int] = [:]
        var requests: [HTTPRequest] = []
    }

    private let state = Locked(State())
    private let clock: any TimeSource
    private let fallback: Step

    /// Creates a transport with no scripts. Unscripted routes answer `fallback`.
    public init(clock: any TimeSource = SystemTimeSource(), fallback: Step = .status(404)) {
        self.clock = clock
        self.fallback = fallback
    }

    /// Scripts the answers for `path` (the URL's decoded path, e.g. `/v1/users`), for `method`
    /// or, if `nil`, for any method. Replaces an earlier script of the same route.
    public func script(_ path: String, method: HTTPMethod? = nil, _ steps: [Step]) {
        precondition(!steps.isEmpty, "a script needs at least one step")
        let route = Route(path: path, method: method)
        state.withLock {
            $0.scripts[route] = steps
            $0.served[route] = 0
        }
    }

    /// Every request received, in arrival order.
    public var requests: [HTTPRequest] { state.withLock { $0.requests } }

    /// The requests received for `path`.
    public func requests(to path: String) -> [HTTPRequest] {
        requests.filter { $0.url.path == path }
    }

    /// Records the request and answers with the next step of its route.
    public func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse {
        try request.validate()
        let step = state.withLock { state -> Step in
            state.requests.append(request)
            let path = request.url.path
            let route = [Route(path: path, method: request.method), Route(path: path, method: nil)]
                .first { state.scripts[$0] != nil }
            guard let route, let steps = state.scripts[route] else { return fallback }
            let index = state.served[route, default: 0]
            state.served[route] = index + 1
            return steps[min(index, steps.count - 1)]
        }
        let response = try await perform(step, timeout: request.timeout)
        let limit = request.responseSizeLimit
        if response.body.count > limit { throw .responseTooLarge(limit: limit) }
        return response
    }

    /// Takes `step`, honouring the request's timeout the way a real transport does.
    private func perform(_ step: Step, timeout: Duration?) async throws(NetworkError) -> HTTPResponse {
        if Task.isCancelled { throw .cancelled }
        switch step {
        case .respond(let response):
            return response
        case .fail(let error):
            throw error
        case .delayed(let delay, let next):
            try await wait(delay, timeout: timeout)
            return try await perform(next, timeout: timeout.map { $0 - delay })
        case .hang:
            try await wait(.seconds(1_000_000_000), timeout: timeout)
            throw .cancelled
        }
    }

    private func wait(_ delay: Duration, timeout: Duration?) async throws(NetworkError) {
        let timesOut = timeout.map { $0 < delay } ?? false
        do {
            try await clock.sleep(for: timesOut ? timeout ?? delay : delay)
        } catch {
            throw .cancelled
        }
        if timesOut { throw .timeout(.attempt, underlying: nil) }
    }
}
