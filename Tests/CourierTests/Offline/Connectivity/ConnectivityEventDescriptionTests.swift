import Testing

@testable import Courier

@Suite struct ConnectivityEventDescriptionTests {
    @Test("the state and its source")
    func line() {
        #expect(ConnectivityEvent(state: .offline, source: .link).description == "offline (link)")
        #expect("\(ConnectivityEvent(state: .online, source: .probe))" == "online (probe)")
    }
}
