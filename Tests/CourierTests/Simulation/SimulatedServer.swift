import CourierTesting
import Foundation

@testable import Courier

/// The server of the fault simulation, in memory: an ``HTTPTransport`` that applies keyed writes
/// at most once per `Idempotency-Key` and records every application, serves cacheable reads,
/// issues and checks bearer tokens, and fails as the schedule tells it to. Each process of the
/// simulation (a client, until it is "killed") talks to it through its own ``Link``, which
/// refuses everything once that process is dead.
///
/// Routes: `POST /notes` (a write `{"w":n}`, applied once per key: 201; a later send of an
/// applied key gets the stored 201, or 409 while `conflicts` last), `GET /items/<k>` (200,
/// `max-age=20`), `POST /auth/refresh` (new tokens, 300 s). Every route but the refresh wants a
/// token it issued, unexpired and not revoked (else 401).
final class SimulatedServer: Sendable {
    /// What the schedule makes the server do, and what it did.
    struct State {
        /// The link: down, every exchange fails with `noConnection` before reaching the server.
        var linkUp = true
        /// The next writes to a key not applied yet are answered 503 (not applied).
        var failures = 0
        /// The next sends of an already applied key are answered 409 (instead of the stored 201).
        var conflicts = 0
        /// The next writes are applied, then the connection is cut before the answer.
        var cuts = 0
        /// Applications by key, and the write each key carried.
        var applications: [String: Int] = [:]
        var writeOfKey: [String: Int] = [:]
        /// Applications by write number (a write sent under two keys would count twice here).
        var applicationsOfWrite: [Int: Int] = [:]
        /// Valid access tokens and their expiry.
        var tokens: [String: Date] = [:]
        var issued = 0
        var requests = 0
    }

    let state = Locked(State())
    let clock: ManualClock

    init(clock: ManualClock) {
        self.clock = clock
    }

    /// New tokens, valid for 300 s of the simulation's clock.
    func issueTokens() -> Tokens {
        let now = clock.currentDate
        return state.withLock { state in
            state.issued += 1
            let access = "a\(state.issued)"
            state.tokens[access] = now.addingTimeInterval(300)
            return Tokens(accessToken: access, refreshToken: "r\(state.issued)", expiresAt: now.addingTimeInterval(300))
        }
    }

    /// Every access token issued so far stops being accepted (the next request gets 401 and the
    /// client refreshes).
    func revokeTokens() {
        state.withLock { $0.tokens.removeAll() }
    }

    /// Answers one exchange of a live process.
    func exchange(_ request: HTTPRequest) throws(NetworkError) -> HTTPResponse {
        let now = clock.currentDate
        let path = request.url.path
        let outcome: Result<HTTPResponse, NetworkError> = state.withLock { state in
            state.requests += 1
            guard state.linkUp else { return .failure(.noConnection(underlying: nil)) }
            if path == "/auth/refresh" {
                state.issued += 1
                let access = "a\(state.issued)"
                state.tokens[access] = now.addingTimeInterval(300)
                let body = #"{"accessToken":"\#(access)","refreshToken":"r\#(state.issued)","expiresIn":300}"#
                return .success(Self.response(200, body: body, headers: ["Content-Type": "application/json"]))
            }
            let bearer = request.headers["Authorization"].map { String($0.dropFirst("Bearer ".count)) }
            guard let bearer, let expiry = state.tokens[bearer], now < expiry else {
                return .success(Self.response(401, body: #"{"message":"unauthorized"}"#))
            }
            if request.method == .get, path.hasPrefix("/items/") {
                return .success(Self.response(200, body: "item \(path.dropFirst("/items/".count)) at \(state.requests)",
                                              headers: ["Cache-Control": "max-age=20"]))
            }
            guard request.method == .post, path == "/notes", let key = request.headers["Idempotency-Key"],
                  let write = Self.write(in: request.body)
            else { return .success(Self.response(400, body: #"{"message":"not a keyed write"}"#)) }
            if state.applications[key] != nil {
                if state.conflicts > 0 {
                    state.conflicts -= 1
                    return .success(Self.response(409, body: #"{"message":"key already used"}"#))
                }
                return .success(Self.response(201, body: "{}"))   // the stored answer
            }
            if state.failures > 0 {
                state.failures -= 1
                return .success(Self.response(503, body: #"{"message":"busy"}"#))
            }
            state.applications[key, default: 0] += 1
            state.writeOfKey[key] = write
            state.applicationsOfWrite[write, default: 0] += 1
            if state.cuts > 0 {
                state.cuts -= 1
                return .failure(.noConnection(underlying: nil))   // applied; the answer is lost
            }
            return .success(Self.response(201, body: "{}"))
        }
        return try outcome.get()
    }

    /// The write number in a body `{"w":n}`.
    static func write(in body: Data?) -> Int? {
        guard let body, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        return object["w"] as? Int
    }

    private static func response(_ status: Int, body: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: Data(body.utf8))
    }

    /// One process's connection to the server: refuses every exchange once `isDead` says the
    /// process was killed (nothing it sends after its death reaches the server).
    struct Link: HTTPTransport {
        let server: SimulatedServer
        let isDead: @Sendable () -> Bool

        func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse {
            try request.validate()
            if Task.isCancelled { throw .cancelled }
            if isDead() { throw .noConnection(underlying: nil) }
            return try server.exchange(request)
        }
    }
}
