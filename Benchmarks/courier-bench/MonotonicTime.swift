import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The system's monotonic clock in nanoseconds, and sleeping until a point on it: what the
/// fixed-rate runs pace requests and time responses with, on every thread alike.
enum MonotonicTime {
    /// Now, in nanoseconds since an arbitrary start.
    static var now: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Blocks the calling thread (never a task's: a pacing thread's) until `deadline`.
    static func sleep(until deadline: UInt64) {
        #if canImport(Glibc)
        // An absolute deadline: a late wake-up does not push back the ones after it.
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
        #else
        let now = now
        if deadline > now { usleep(useconds_t((deadline - now) / 1000)) }
        #endif
    }
}
