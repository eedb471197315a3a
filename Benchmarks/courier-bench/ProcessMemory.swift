import Courier
import Foundation

/// Resident memory figures of this process, from /proc (zero where unavailable).
enum ProcessMemory {
    /// Peak resident set size, in MiB.
    static var peakResidentMiB: Double { statusField("VmHWM") }
    /// Current resident set size, in MiB.
    static var residentMiB: Double { statusField("VmRSS") }

    private static func statusField(_ name: String) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
            return kilobytes / 1024
        }
        return 0
    }
}
