#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A serial executor with a thread of its own: the jobs enqueued on it run one at a time, in
/// order, on that thread, never on the cooperative pool. The actors that own a database (the
/// offline queue, the cache with a persistent tier) run on one, so that a SQLite statement, an
/// `fsync`, or a wait for another process's lock blocks that thread and nothing else: the pool
/// has one thread per core, and a blocked pool thread stalls unrelated requests.
///
/// One executor per component instance: its actor holds it, and the thread ends once the
/// executor is released (the actor's `isolated deinit` is its last job) and nothing is queued.
/// A restarted instance gets a new thread; the failed one's ends with it.
package final class ThreadExecutor: SerialExecutor, @unchecked Sendable {
    // Invariant: `queue` is shared with the thread, and everything mutable in it is guarded by
    // its mutex. The executor itself holds no mutable state.
    private let queue: JobQueue

    /// Starts the thread, named `name` (what a debugger or `top -H` shows; 15 bytes at most on Linux).
    package init(name: String) {
        queue = JobQueue()
        let queue = self.queue
        // The thread holds the queue, not the executor: releasing the executor ends the thread.
        // A job runs on the executor's reference, which is alive while the job runs (the job's
        // actor holds it).
        let executor = UnownedSerialExecutor(ordinary: self)
        let thread = Thread { queue.run(on: executor, named: name) }
        thread.name = name   // best effort: Foundation on Linux does not always pass it to the OS
        thread.start()
    }

    deinit {
        queue.stop()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        queue.append(UnownedJob(job))
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Traps unless called on this executor's thread (what `assumeIsolated` and
    /// `preconditionIsolated` ask when the runtime cannot tell by itself).
    package func checkIsolated() {
        precondition(isCurrent, "not on the executor's thread")
    }

    /// Whether the calling thread is this executor's.
    package var isCurrent: Bool { queue.isCurrentThread }

    /// The name of the executor whose thread is calling, `nil` on any other thread (the pool's).
    package static var currentName: String? {
        guard let name = pthread_getspecific(currentNameKey) else { return nil }
        return Unmanaged<NameBox>.fromOpaque(name).takeUnretainedValue().name
    }

    /// Opens once the thread has ended: a released executor's thread ends after its last job.
    package var ended: Latch { queue.ended }
}

/// The key of the thread-local name of an executor's thread (``ThreadExecutor/currentName``).
private let currentNameKey: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
    return key
}()

private final class NameBox {
    let name: String
    init(_ name: String) { self.name = name }
}

/// The jobs waiting for an executor's thread, and the thread's loop.
private final class JobQueue: @unchecked Sendable {
    // Invariant: `jobs`, `stopping`, `sleeping` and `thread` are read and written only with
    // `mutex` held; `running` only by the executor's thread. The mutex and condition live in
    // allocations of their own (fixed addresses), made in `init` and freed in `deinit`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs: [UnownedJob] = []
    /// The batch being run, swapped with `jobs` so that both keep their capacity.
    private var running: [UnownedJob] = []
    private var stopping = false
    /// Whether the thread waits on `condition` (only then is it signalled).
    private var sleeping = false
    private var thread: pthread_t?
    let ended = Latch()

    init() {
        mutex.initialize(to: pthread_mutex_t())
        condition.initialize(to: pthread_cond_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        precondition(pthread_cond_init(condition, nil) == 0, "pthread_cond_init failed")
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func append(_ job: UnownedJob) {
        pthread_mutex_lock(mutex)
        jobs.append(job)
        let wake = sleeping
        sleeping = false
        pthread_mutex_unlock(mutex)
        if wake { pthread_cond_signal(condition) }
    }

    /// Ends the thread once every queued job has run.
    func stop() {
        pthread_mutex_lock(mutex)
        stopping = true
        let wake = sleeping
        sleeping = false
        pthread_mutex_unlock(mutex)
        if wake { pthread_cond_signal(condition) }
    }

    var isCurrentThread: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    /// The thread's loop: takes every queued job at once, runs them in order, sleeps when none
    /// is queued, returns once stopped with none queued.
    func run(on executor: UnownedSerialExecutor, named name: String) {
        let box = Unmanaged.passRetained(NameBox(name))
        pthread_setspecific(currentNameKey, box.toOpaque())
        defer {
            pthread_setspecific(currentNameKey, nil)
            box.release()
        }
        pthread_mutex_lock(mutex)
        thread = pthread_self()
        while true {
            if jobs.isEmpty {
                if stopping { break }
                sleeping = true
                // `sleeping` is cleared by whoever signals; a spurious wake-up just loops.
                pthread_cond_wait(condition, mutex)
                continue
            }
            swap(&jobs, &running)
            pthread_mutex_unlock(mutex)
            for job in running { job.runSynchronously(on: executor) }
            running.removeAll(keepingCapacity: running.capacity <= 1024)
            pthread_mutex_lock(mutex)
        }
        thread = nil
        pthread_mutex_unlock(mutex)
        ended.open()
    }
}
