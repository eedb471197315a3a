import Foundation
import Testing

@testable import Courier

/// The bookkeeping of queued mutations' layers: an end that comes before its hold is kept only
/// while a perform is between its enqueue and its hold, and only so many.
@Suite struct GraphQLQueuedLayersTests {
    private let access = GraphQLNormalizedCache.Access(
        collector: GraphQLSelectionCollector(fragments: [:], variables: [:], possibleTypes: [:]), selections: [],
        rootKey: "ROOT_MUTATION", rootType: "Mutation")

    @Test("held, then ended: settled once, with its end")
    func heldThenEnded() {
        var layers = GraphQLQueuedLayers()
        layers.begin()
        #expect(layers.hold(7, access: access, for: 1) == nil)
        let settlement = layers.ended(1, .givenUp)
        #expect(settlement?.layer == 7)
        #expect(layers.ended(1, .delivered) == nil)
    }

    @Test("ended before its hold while a perform is pending: the hold settles at once")
    func endedBeforeHold() throws {
        var layers = GraphQLQueuedLayers()
        layers.begin()
        #expect(layers.ended(3, .replayed(body: Data("{}".utf8))) == nil)
        let held = layers.hold(9, access: access, for: 3)
        let settlement = try #require(held)
        #expect(settlement.layer == 9)
        guard case .replayed = settlement.end else { Issue.record("got \(settlement.end)"); return }
    }

    @Test("no perform pending: ends of unknown items are not kept")
    func nothingPending() {
        var layers = GraphQLQueuedLayers()
        #expect(layers.ended(5, .delivered) == nil)
        layers.begin()
        #expect(layers.hold(1, access: access, for: 5) == nil)
        #expect(layers.ended(5, .givenUp)?.layer == 1)
    }

    @Test("at most earlyLimit early ends are kept: the oldest go first")
    func earlyBound() {
        var layers = GraphQLQueuedLayers()
        layers.begin()
        layers.begin()
        for id in 0...Int64(GraphQLQueuedLayers.earlyLimit) { _ = layers.ended(id, .delivered) }
        #expect(layers.hold(1, access: access, for: 0) == nil)   // dropped: held instead
        #expect(layers.hold(2, access: access, for: 1)?.layer == 2)
    }

    @Test("abandoned performs stop the keeping")
    func abandoned() {
        var layers = GraphQLQueuedLayers()
        layers.begin()
        layers.abandon()
        #expect(layers.ended(2, .delivered) == nil)
        layers.begin()
        #expect(layers.hold(4, access: access, for: 2) == nil)
    }
}
