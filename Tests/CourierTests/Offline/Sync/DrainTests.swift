import Foundation
import Testing

@testable import Courier

@Suite struct DrainTests {
    private let drain = Drain(
        queue: OfflineQueue.Handle(mailbox: Mailbox(name: "OfflineQueue"), waiting: LatestValue(0)),
        send: { _, _ in .failure(.cancelled) }, resolver: .serverWins, connectivity: LatestValue(.online),
        progress: EventBroadcaster(), forced: false)

    private func item(requiresAuth: Bool) -> OfflineItem {
        OfflineItem.enqueued(
            HTTPRequest(method: .post, url: URL(string: "https://api.example.com/notes")!), requiresAuth: requiresAuth,
            id: 1, idempotencyKey: "k", now: Date(timeIntervalSince1970: 0), expiry: .seconds(60))
    }

    private func kind(_ error: NetworkError, requiresAuth: Bool = true, keyMayBeInProgress: Bool = false) -> String {
        var item = item(requiresAuth: requiresAuth)
        item.keyMayBeInProgress = keyMayBeInProgress
        switch drain.verdict(for: error, of: item, as: item.request) {
        case .interrupted(_, let unanswered): return unanswered ? "interrupted unanswered" : "interrupted"
        case .failed: return "failed"
        case .conflict(_, let resolution): return "conflict \(resolution)"
        case .keyInProgress: return "key in progress"
        case .breakerOpen: return "breaker open"
        case .delivered: return "delivered"
        case .released: return "released"
        }
    }

    @Test("what says nothing about the item interrupts; what belongs to the item counts as a failure")
    func verdicts() {
        #expect(kind(.noConnection(underlying: nil)) == "interrupted unanswered")   // maybe cut after the server took it
        #expect(kind(.overloaded) == "interrupted")
        #expect(kind(.connectionLost(host: "h", port: 1, underlying: nil)) == "interrupted unanswered")
        // No connection made, nothing sent: the server is down for every item alike.
        for reason in [NetworkError.ConnectFailure.refused, .hostNotFound, .unreachable, .tlsHandshake] {
            #expect(kind(.cannotConnect(host: "h", port: 1, reason: reason, underlying: nil)) == "interrupted", "\(reason)")
        }
        #expect(kind(.cancelled) == "interrupted unanswered")
        #expect(kind(.componentRestarted("x")) == "interrupted unanswered")
        #expect(kind(.circuitOpen(origin: "https://h:443", retryAfter: .seconds(5))) == "breaker open")   // nothing sent: not an attempt
        #expect(kind(.unauthorized(nil)) == "interrupted")        // the session, for an item that uses it
        #expect(kind(.unauthorized(nil), requiresAuth: false) == "failed")
        #expect(kind(.timeout(.attempt, underlying: nil)) == "failed")   // backs off, then a dead letter
        #expect(kind(.securityError("plain http")) == "failed")
        #expect(kind(.serverError(HTTPResponse(status: 503))) == "failed")
        #expect(kind(.conflict(HTTPResponse(status: 409))) == "conflict serverWins")
        #expect(kind(.serverError(HTTPResponse(status: 412))) == "conflict serverWins")
    }

    @Test("a 409 or 412 to a key whose last send got no answer is the server still processing it, not for the resolver")
    func keyInProgress() {
        #expect(kind(.conflict(HTTPResponse(status: 409)), keyMayBeInProgress: true) == "key in progress")
        #expect(kind(.serverError(HTTPResponse(status: 412)), keyMayBeInProgress: true) == "key in progress")
        #expect(kind(.serverError(HTTPResponse(status: 503)), keyMayBeInProgress: true) == "failed")
    }
}
