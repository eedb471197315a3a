import Courier
import Foundation

/// Items as a client's queue would store them, for the storage-level tests.
enum Items {
    /// A fixed start time: the tests move `now` themselves, never wait for the clock.
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A queued `POST /writes/<sequence>` with ordering key `key`, its sequence in `X-Sequence`.
    static func write(
        key: String = OfflineItem.defaultOrderingKey, sequence: Int = 0, identity: String? = nil, baseURL: String = "http://127.0.0.1:9",
        state: OfflineItemState = .queued, nextAttemptAt: Date? = nil
    ) -> OfflineItem {
        let request = HTTPRequest(
            method: .post, url: URL(string: "\(baseURL)/writes/\(sequence)")!,
            headers: ["Content-Type": "application/json", "X-Ordering-Key": key, "X-Sequence": "\(sequence)"],
            body: Data(#"{"sequence":\#(sequence)}"#.utf8)
        )
        return OfflineItem(
            id: 0, request: request, requiresAuth: identity != nil, sessionIdentity: identity, attemptTimeout: .seconds(5),
            deadline: nil, idempotencyKey: UUID().uuidString, createdAt: start, expiresAt: start.addingTimeInterval(86_400),
            attempts: 0, lastError: nil, state: state, nextAttemptAt: nextAttemptAt, serverResponse: nil, orderingKey: key
        )
    }

    /// `item` after a replay that failed for now: retrying after `until`.
    static func retrying(_ item: OfflineItem, until: Date) -> OfflineItem {
        OfflineItem(
            id: item.id, request: item.request, requiresAuth: item.requiresAuth, sessionIdentity: item.sessionIdentity,
            attemptTimeout: item.attemptTimeout, deadline: item.deadline, idempotencyKey: item.idempotencyKey,
            createdAt: item.createdAt, expiresAt: item.expiresAt, attempts: item.attempts + 1, lastError: "503",
            state: .retrying, nextAttemptAt: until, serverResponse: HTTPResponse(status: 503, headers: ["Retry-After": "1"], body: Data("busy".utf8)),
            orderingKey: item.orderingKey
        )
    }
}
