import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite struct TokenStoreHandleTests {
    private let clock = ManualClock()

    private func handle(_ credential: Credential) -> TokenStore.Handle {
        TokenStore.Handle(mailbox: Mailbox(name: "TokenStore"), credential: LatestValue(credential), clock: clock)
    }

    @Test("the published credential is read at once: its Authorization value and its version")
    func readsThePublishedCredential() throws {
        let authorization = "Bearer " + String(repeating: "t", count: 40)
        let value = try #require(try handle(Credential(authorization: authorization, version: 3, refreshAt: nil)).authorizationNow())
        #expect(value.value == authorization)
        #expect(value.version == 3)
    }

    @Test("the store must be asked before it has loaded its tokens, and when a refresh is due; without tokens the request is unauthorized")
    func asksOrFailsWhenItCannotAnswerAtOnce() throws {
        #expect(try handle(.unpublished).authorizationNow() == nil)
        let refreshAt = clock.currentDate.addingTimeInterval(60)
        let due = handle(Credential(authorization: "Bearer x", version: 1, refreshAt: refreshAt))
        #expect(try due.authorizationNow()?.version == 1)
        clock.advance(by: .seconds(60))
        #expect(try due.authorizationNow() == nil)
        #expect(throws: NetworkError.self) { try handle(.none(version: 2)).authorizationNow() }
    }
}
