import Foundation
import Testing

@testable import Courier

@Suite struct TokenEventDescriptionTests {
    @Test("token events in a line, expiry in ISO 8601, never a token")
    func lines() {
        let expiry = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(TokenEvent.signedIn(expiresAt: expiry).description == "signed in, expires 2027-01-15T08:00:00Z")
        #expect(TokenEvent.refreshed(expiresAt: nil).description == "refreshed")
        #expect(TokenEvent.refreshFailed(.cancelled).description.hasPrefix("refresh failed: "))
        #expect(TokenEvent.sessionExpired.description == "session expired")
        #expect(TokenEvent.signedOut.description == "signed out")
        #expect(TokenEvent.storageFailed("read-only").description == "token storage failed: read-only")
    }
}
