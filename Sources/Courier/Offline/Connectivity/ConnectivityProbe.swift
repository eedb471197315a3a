import Foundation

/// The active source: requests the health URL on ``ProbeSchedule``'s rhythm and reports
/// whether an answer came back (any HTTP status counts: the network works). Runs as a plain
/// supervised task; cancelling it stops it.
struct ConnectivityProbe: Sendable {
    let url: URL
    let timeout: Duration
    let schedule: ProbeSchedule
    let transport: any HTTPTransport
    let clock: any TimeSource
    let monitor: Mailbox<NetworkMonitor.Message>

    /// Probes until cancelled (then returns normally), or until the monitor's mailbox closes.
    func run() async throws {
        var failures = 0
        while !Task.isCancelled {
            let reachable = await probe()
            failures = reachable ? 0 : failures + 1
            try monitor.send(.observe(reachable ? .online : .offline, .probe))
            do { try await clock.sleep(for: schedule.delay(afterFailures: failures)) } catch { return }
        }
    }

    /// One request to the health URL: whether any response came back within the timeout.
    func probe() async -> Bool {
        var request = HTTPRequest(method: .get, url: url, headers: ["Accept": "*/*"])
        request.timeout = timeout
        request.maximumResponseSize = 64 * 1024
        do {
            _ = try await transport.send(request)
            return true
        } catch .responseTooLarge {
            return true   // an answer came back: the network works
        } catch {
            return false
        }
    }
}
