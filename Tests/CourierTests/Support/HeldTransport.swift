import Foundation
import Synchronization

@testable import Courier

/// A transport that holds every request until the test releases it: what reached the
/// transport, and in which order, is then decided by admission alone. A request whose task is
/// cancelled while held ends with `cancelled`.
final class HeldTransport: HTTPTransport, Sendable {
    private struct Held {
        let id: Int
        let continuation: CheckedContinuation<HTTPResponse?, Never>
    }

    private struct State {
        var arrived: [String] = []
        var held: [Held] = []
        var next = 0
    }

    private let state = Mutex(State())

    /// The paths of the requests received, in arrival order.
    var arrived: [String] { state.withLock { $0.arrived } }
    /// Requests held now.
    var heldCount: Int { state.withLock { $0.held.count } }

    func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse {
        let id = state.withLock { state in
            state.next += 1
            state.arrived.append(request.url.path)
            return state.next
        }
        let response = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<HTTPResponse?, Never>) in
                let cancelled = state.withLock { state in
                    if Task.isCancelled { return true }
                    state.held.append(Held(id: id, continuation: continuation))
                    return false
                }
                if cancelled { continuation.resume(returning: nil) }
            }
        } onCancel: {
            let held = state.withLock { state in
                state.held.firstIndex { $0.id == id }.map { state.held.remove(at: $0) }
            }
            held?.continuation.resume(returning: nil)
        }
        guard let response else { throw .cancelled }
        return response
    }

    /// Answers the oldest held request with `status`; returns whether one was held.
    @discardableResult
    func releaseOldest(status: Int = 200) -> Bool {
        let held = state.withLock { $0.held.isEmpty ? nil : $0.held.removeFirst() }
        held?.continuation.resume(returning: HTTPResponse(status: status))
        return held != nil
    }

    /// Answers every held request with `status`.
    func releaseAll(status: Int = 200) {
        while releaseOldest(status: status) {}
    }
}
