import Foundation

/// Holds each replica before its next claim once `threshold` items were delivered, until
/// ``open()``.
actor RestartGate {
    private let threshold: Int
    private var isOpen = false
    private var held: [CheckedContinuation<Void, Never>] = []

    init(threshold: Int) {
        self.threshold = threshold
    }

    func pass(delivered: Int) async {
        guard !isOpen, delivered >= threshold else { return }
        await withCheckedContinuation { continuation in held.append(continuation) }
    }

    func open() {
        isOpen = true
        for continuation in held { continuation.resume() }
        held = []
    }
}
