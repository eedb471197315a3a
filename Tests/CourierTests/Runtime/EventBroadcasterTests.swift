import Testing

@testable import Courier

@Suite(.timeLimit(.minutes(5))) struct EventBroadcasterTests {
    @Test("every subscriber gets every event in order")
    func everySubscriberGetsEveryEventInOrder() async {
        let broadcaster = EventBroadcaster<Int>()
        let first = broadcaster.subscribe()
        let second = broadcaster.subscribe()
        #expect(broadcaster.hasSubscribers)
        for value in 1...100 { broadcaster.publish(value) }
        broadcaster.finish()
        #expect(await Array(first) == Array(1...100))
        #expect(await Array(second) == Array(1...100))
    }

    @Test("a subscriber sees only what is published after it subscribed")
    func aSubscriberSeesOnlyWhatIsPublishedAfterItSubscribed() async {
        let broadcaster = EventBroadcaster<Int>()
        broadcaster.publish(1)
        let late = broadcaster.subscribe()
        broadcaster.publish(2)
        broadcaster.finish()
        #expect(await Array(late) == [2])
    }

    @Test("a subscriber whose stream ends is removed")
    func aSubscriberWhoseStreamEndsIsRemoved() async {
        let broadcaster = EventBroadcaster<Int>()
        let consumer = Task {
            for await value in broadcaster.subscribe() where value == 1 { return }
        }
        while !broadcaster.hasSubscribers { await Task.yield() }
        broadcaster.publish(1)
        await consumer.value
        // The iterator is gone, so the stream terminates and its subscription is dropped.
        await waitUntil { !broadcaster.hasSubscribers }
        #expect(!broadcaster.hasSubscribers)
    }

    @Test("finish ends every stream and later subscribers get a finished stream")
    func finishEndsEveryStreamAndLaterSubscribersGetAFinishedStream() async {
        let broadcaster = EventBroadcaster<String>()
        let early = broadcaster.subscribe()
        broadcaster.finish()
        #expect(broadcaster.isFinished)
        #expect(!broadcaster.hasSubscribers)
        broadcaster.publish("ignored")
        let late = broadcaster.subscribe()
        #expect(await Array(early).isEmpty)
        #expect(await Array(late).isEmpty)
    }

    @Test("a bounded subscriber keeps only the newest events")
    func aBoundedSubscriberKeepsOnlyTheNewestEvents() async {
        let broadcaster = EventBroadcaster<Int>()
        let stream = broadcaster.subscribe(bufferingPolicy: .bufferingNewest(3))
        for value in 1...10 { broadcaster.publish(value) }
        broadcaster.finish()
        #expect(await Array(stream) == [8, 9, 10])
    }
}

extension Array {
    /// Every element of `stream`, once it finishes.
    init(_ stream: AsyncStream<Element>) async {
        var elements: [Element] = []
        for await element in stream { elements.append(element) }
        self = elements
    }
}
