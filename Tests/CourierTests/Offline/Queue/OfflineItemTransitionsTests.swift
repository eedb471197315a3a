import Foundation
import Testing

@testable import Courier

private let start = Date(timeIntervalSince1970: 1_800_000_000)
private let limits = OfflineLimits(maxAttempts: 3, expiry: .seconds(3600), backoff: .constant(.seconds(10)), maxItems: 10)

private func item(headers: HTTPHeaders = ["Authorization": "Bearer secret", "Content-Type": "application/json"]) -> OfflineItem {
    let request = HTTPRequest(method: .post, url: URL(string: "https://api.example.com/notes")!, headers: headers, body: Data("local".utf8))
    return OfflineItem.enqueued(request, requiresAuth: true, id: 1, idempotencyKey: "key", now: start, expiry: limits.expiry)
}

private func response(_ status: Int, etag: String? = nil) -> HTTPResponse {
    HTTPResponse(status: status, headers: etag.map { ["ETag": $0] } ?? [:], body: Data("server".utf8))
}

@Suite struct OfflineItemTransitionsTests {
    @Test("an enqueued item waits, without the Authorization header, expiring after the expiry")
    func enqueued() {
        let item = item()
        #expect(item.state == .queued)
        #expect(!item.request.headers.contains("Authorization"))
        #expect(item.request.headers["Content-Type"] == "application/json")
        #expect(item.expiresAt == start.addingTimeInterval(3600))
        #expect(item.isDue(at: start))
    }

    @Test("delivered leaves the queue; an interruption waits again without counting an attempt")
    func deliveredAndInterrupted() {
        let sending = item().claimed()
        let delivered = sending.settled(by: .delivered(status: 201), now: start, limits: limits)
        #expect(delivered.item == nil)
        #expect(delivered.event == .delivered(itemID: 1, status: 201))
        let interrupted = sending.settled(by: .interrupted("overloaded", unanswered: false), now: start, limits: limits)
        #expect(interrupted.item?.state == .queued)
        #expect(interrupted.item?.attempts == 0)
        #expect(interrupted.event == nil)
        #expect(interrupted.item?.keyMayBeInProgress == false)
    }

    @Test("an open circuit breaker backs the item off until its probes (or its backoff, when unknown), counting no attempt")
    func breakerOpen() {
        let refused = NetworkError.circuitOpen(origin: "https://api.example.com:443", retryAfter: .seconds(25))
        let waiting = item().claimed().settled(by: .breakerOpen(refused, retryAfter: .seconds(25)), now: start, limits: limits)
        #expect(waiting.item?.state == .retrying)
        #expect(waiting.item?.attempts == 0)
        #expect(waiting.item?.nextAttemptAt == start.addingTimeInterval(25))
        guard case .retrying(1, 0, _) = waiting.event else { Issue.record("\(String(describing: waiting.event))"); return }
        let unknown = item().claimed().settled(by: .breakerOpen(refused, retryAfter: .zero), now: start, limits: limits)
        #expect(unknown.item?.nextAttemptAt == start.addingTimeInterval(10))
        #expect(unknown.item?.attempts == 0)
    }

    @Test("a 409 after a send that got no answer backs off once with the same key; the next 409 is a conflict")
    func keyInProgress() {
        let cut = item().claimed().settled(by: .interrupted("cancelled", unanswered: true), now: start, limits: limits).item!
        #expect(cut.keyMayBeInProgress)
        let busy = cut.claimed().settled(by: .keyInProgress(response(409)), now: start, limits: limits)
        #expect(busy.item?.state == .retrying)
        #expect(busy.item?.attempts == 0)
        #expect(busy.item?.idempotencyKey == "key")
        #expect(busy.item?.nextAttemptAt == start.addingTimeInterval(10))
        #expect(busy.item?.keyMayBeInProgress == false)
        guard case .retrying(1, 0, _) = busy.event else { Issue.record("\(String(describing: busy.event))"); return }
        // A timeout got no answer either; any answer clears the mark.
        let timedOut = item().claimed().settled(by: .failed(.timeout(.attempt, underlying: nil)), now: start, limits: limits).item!
        #expect(timedOut.keyMayBeInProgress)
        #expect(timedOut.claimed().settled(by: .failed(.serverError(response(503))), now: start, limits: limits).item?.keyMayBeInProgress == false)
        let resolved = cut.claimed().settled(by: .conflict(response(409), .clientWins), now: start, limits: limits).item
        #expect(resolved?.keyMayBeInProgress == false)
    }

    @Test("retryable failures back off until the last attempt makes a dead letter")
    func retriesThenDead() {
        var current = item()
        for attempt in 1...2 {
            let change = current.claimed().settled(by: .failed(.serverError(response(503))), now: start, limits: limits)
            current = change.item!
            #expect(current.state == .retrying)
            #expect(current.attempts == attempt)
            #expect(current.nextAttemptAt == start.addingTimeInterval(10))
            #expect(!current.isDue(at: start.addingTimeInterval(9)))
            #expect(current.isDue(at: start.addingTimeInterval(10)))
        }
        let last = current.claimed().settled(by: .failed(.serverError(response(503))), now: start, limits: limits)
        #expect(last.item?.state == .dead)
        #expect(last.item?.attempts == 3)
        guard case .deadLettered(1, _) = last.event else { Issue.record("\(String(describing: last.event))"); return }
    }

    @Test("a permanent failure is a dead letter at once; retrying it starts over")
    func permanentFailure() {
        let dead = item().claimed().settled(by: .failed(.serverError(response(422))), now: start, limits: limits).item!
        #expect(dead.state == .dead)
        #expect(dead.lastError?.contains("422") == true)
        let later = start.addingTimeInterval(7200)
        let retried = dead.retried(now: later, expiry: limits.expiry)
        #expect(retried.state == .queued)
        #expect(retried.attempts == 0)
        #expect(retried.expiresAt == later.addingTimeInterval(3600))
    }

    @Test("an item waiting past its expiry expires; one in flight does not")
    func expiry() {
        let late = start.addingTimeInterval(3600)
        #expect(item().expiring(now: start.addingTimeInterval(3599)) == nil)
        let expired = item().expiring(now: late)
        #expect(expired?.item?.state == .expired)
        #expect(expired?.event == .expired(itemID: 1))
        #expect(item().claimed().expiring(now: late) == nil)
    }

    @Test("a process death during a replay leaves it queued with the same key")
    func recovery() {
        let recovered = item().claimed().recovered()
        #expect(recovered.state == .queued)
        #expect(recovered.idempotencyKey == "key")
    }

    @Test("conflicts: serverWins drops, clientWins sends If-Match under a new key, merge sends the merged body, manual parks")
    func conflicts() {
        let sending = item().claimed()
        let dropped = sending.settled(by: .conflict(response(409), .serverWins), now: start, limits: limits)
        #expect(dropped.item == nil)
        #expect(dropped.event == .conflictResolved(itemID: 1, resolution: "serverWins"))

        let client = sending.settled(by: .conflict(response(412, etag: "\"v7\""), .clientWins), now: start, limits: limits).item!
        #expect(client.state == .queued)
        #expect(client.request.headers["If-Match"] == "\"v7\"")
        #expect(client.idempotencyKey == "key~1")
        #expect(client.request.body == Data("local".utf8))

        let merged = sending.settled(by: .conflict(response(409), .merge(Data("both".utf8))), now: start, limits: limits).item!
        #expect(merged.request.body == Data("both".utf8))
        #expect(merged.idempotencyKey == "key~1")

        let parked = sending.settled(by: .conflict(response(409), .manual), now: start, limits: limits)
        #expect(parked.item?.state == .conflict)
        #expect(parked.item?.serverResponse?.body == Data("server".utf8))
        #expect(parked.event == .conflict(itemID: 1, status: 409))
        let resolved = parked.item!.resolved(by: .clientWins)
        #expect(resolved.item?.state == .queued)
        #expect(resolved.item?.idempotencyKey == "key~1")
    }

    @Test("a key that contains ~ itself gets revisions of its own, never another key's")
    func keysWithTilde() {
        var request = item()
        request.idempotencyKey = "order~draft"
        let once = request.claimed().settled(by: .conflict(response(409), .clientWins), now: start, limits: limits).item!
        #expect(once.idempotencyKey == "order~draft~1")
        let twice = once.claimed().settled(by: .conflict(response(409), .clientWins), now: start, limits: limits).item!
        #expect(twice.idempotencyKey == "order~draft~2")
    }

    @Test("a write that keeps conflicting becomes a dead letter after the attempts")
    func endlessConflict() {
        var current = item()
        for _ in 1...2 {
            current = current.claimed().settled(by: .conflict(response(409), .clientWins), now: start, limits: limits).item!
            #expect(current.state == .queued)
        }
        let last = current.claimed().settled(by: .conflict(response(409), .clientWins), now: start, limits: limits)
        #expect(last.item?.state == .dead)
        #expect(current.idempotencyKey == "key~2")
    }

    @Test("a 429 or 503 with Retry-After (seconds or HTTP date) waits at least that long, capped by the expiry; other statuses keep the backoff")
    func retryAfter() {
        func next(_ status: Int, _ retryAfter: String) -> Date? {
            let answer = HTTPResponse(status: status, headers: ["Retry-After": retryAfter])
            return item().claimed().settled(by: .failed(.serverError(answer)), now: start, limits: limits).item?.nextAttemptAt
        }
        #expect(next(429, "120") == start.addingTimeInterval(120))
        #expect(next(503, "Fri, 15 Jan 2027 08:05:00 GMT") == start.addingTimeInterval(300))   // start is 08:00:00
        #expect(next(503, "5") == start.addingTimeInterval(10))   // never shorter than the backoff
        #expect(next(500, "120") == start.addingTimeInterval(10))   // Retry-After counts on 429 and 503 only, as for live retries
        #expect(next(429, "soon") == start.addingTimeInterval(10))
        #expect(next(429, "99999999") == start.addingTimeInterval(3600))   // the item's expiry
    }
}
