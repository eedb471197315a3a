/// A long-lived task that runs admitted requests one after another, so that a request does not
/// pay for creating, scheduling and destroying a task of its own. The pipeline hands a worker
/// one request at a time (`inbox`) and cancels the worker's task to cancel the request it is
/// running; a cancelled worker ends after that request and is not reused.
struct RequestWorker: Sendable {
    let inbox: WorkerInbox
    let task: Task<Void, Never>

    /// Starts a worker that runs what it is given with `execution`.
    static func start(_ execution: RequestExecution) -> RequestWorker {
        let inbox = WorkerInbox()
        let task = Task.detached {
            // A cancelled worker's inbox is closed too (`cancel()`), so `next()` ends it.
            while let (pending, publishing) = await inbox.next() {
                await execution.run(pending, publishing: publishing)
            }
        }
        return RequestWorker(inbox: inbox, task: task)
    }

    /// Ends the worker: the request it runs is cancelled, and it takes no other.
    func cancel() {
        task.cancel()
        inbox.close()
    }
}

/// The hand-off slot between the pipeline and one worker: at most one request waits in it.
///
/// The request always goes through the slot, under its lock, and a waiting worker is only
/// woken: it takes the request under the same lock, so what the pipeline wrote before handing
/// it over is ordered before what the worker reads (a value passed through the continuation
/// alone is not, as ThreadSanitizer sees it). The mailbox hands over messages the same way.
final class WorkerInbox: Sendable {
    /// A request, and whether its events are published.
    typealias Work = (pending: PendingRequest, publishing: Bool)

    private struct State {
        var next: Work?
        var waiter: UnsafeContinuation<Void, Never>?
        var closed = false
    }

    private let state = Locked(State())

    /// Gives the worker its next request (the slot must be empty).
    func give(_ work: Work) {
        let waiter = state.withLock { state -> UnsafeContinuation<Void, Never>? in
            precondition(state.next == nil, "a worker is given one request at a time")
            state.next = work
            return state.waiter.take()
        }
        waiter?.resume()
    }

    /// No more requests: a waiting worker gets `nil`.
    func close() {
        let waiter = state.withLock { state -> UnsafeContinuation<Void, Never>? in
            state.closed = true
            return state.waiter.take()
        }
        waiter?.resume()
    }

    /// The next request, waiting for one; `nil` once closed. (No cancellation handler: the
    /// pipeline cancels a worker with ``RequestWorker/cancel()``, which closes the inbox too.)
    nonisolated(nonsending) func next() async -> Work? {
        while true {
            if let ready = state.withLock({ state -> Work?? in
                if let next = state.next.take() { return .some(next) }
                return state.closed ? .some(nil) : .none
            }) {
                return ready
            }
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let wake = state.withLock { state -> Bool in
                    if state.next != nil || state.closed { return true }
                    state.waiter = continuation
                    return false
                }
                if wake { continuation.resume() }
            }
        }
    }
}
