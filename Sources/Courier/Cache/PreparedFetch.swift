/// A caller's fetch, prepared in the caller's task before it asks the cache, so that the fetch
/// carries the caller's task-local values: the cache starts it if this caller's request opens
/// a new fetch (a miss, or a background revalidation), and it is dropped otherwise (a joiner, a
/// hit from storage). Its task waits for one of the two.
final class PreparedFetch: Sendable {
    /// What the cache decided.
    private enum State {
        case waiting(UnsafeContinuation<Void, Never>?)
        case ordered(Order?)
    }

    /// The request to send (with the cache's validators) and where its answer goes.
    struct Order: Sendable {
        let request: HTTPRequest
        let answer: Reply<HTTPResponse>
    }

    private let state = Locked(State.waiting(nil))
    /// Waits for the order, and runs it if there is one.
    private let task: Task<Void, Never>

    /// Prepares `send` (the steps after the cache) in a task of the calling task's, which waits
    /// for the cache's order.
    init(_ send: @escaping @Sendable (HTTPRequest) async -> Result<HTTPResponse, NetworkError>) {
        task = Task { [state] in
            guard let order = await Self.order(state) else { return }
            order.answer.resume(with: await send(order.request))
        }
    }

    /// Starts the fetch of `request`, answered through `answer`; returns its task, which the
    /// cache cancels when no caller waits for it any more.
    func start(_ request: HTTPRequest, answer: Reply<HTTPResponse>) -> Task<Void, Never> {
        decide(Order(request: request, answer: answer))
        return task
    }

    /// The cache did not need it (or the caller is done with the cache): its task ends.
    func drop() {
        decide(nil)
    }

    private func decide(_ order: Order?) {
        let waiter = state.withLock { state -> UnsafeContinuation<Void, Never>? in
            guard case .waiting(let waiter) = state else { return nil }
            state = .ordered(order)
            return waiter
        }
        waiter?.resume()
    }

    /// Waits for the cache's order. It is read under the lock, not passed through the
    /// continuation, so that what the cache wrote before ordering is ordered before the read.
    private static func order(_ state: Locked<State>) async -> Order? {
        while true {
            if case .ordered(let order) = state.withLock({ $0 }) { return order }
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if case .ordered = state { return true }
                    state = .waiting(continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }
}
