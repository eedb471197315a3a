import Courier
import Foundation

/// CPU time and context switches of this whole process, from `getrusage`: steadier than
/// throughput on a shared machine, since another process's load slows this one down without
/// adding to its CPU time.
struct ProcessUsage {
    var cpuSeconds = 0.0
    var contextSwitches = 0.0

    static var now: ProcessUsage {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return ProcessUsage(cpuSeconds: user + system, contextSwitches: Double(usage.ru_nvcsw + usage.ru_nivcsw))
    }

    static func + (a: ProcessUsage, b: ProcessUsage) -> ProcessUsage {
        ProcessUsage(cpuSeconds: a.cpuSeconds + b.cpuSeconds, contextSwitches: a.contextSwitches + b.contextSwitches)
    }

    static func - (a: ProcessUsage, b: ProcessUsage) -> ProcessUsage {
        ProcessUsage(cpuSeconds: a.cpuSeconds - b.cpuSeconds, contextSwitches: a.contextSwitches - b.contextSwitches)
    }
}

extension Measurement {
    /// CPU time this process spent per request, in microseconds.
    var cpuMicrosPerRequest: Double { usage.cpuSeconds / Double(requests) * 1e6 }
    /// Context switches of this process per request.
    var contextSwitchesPerRequest: Double { usage.contextSwitches / Double(requests) }
}
