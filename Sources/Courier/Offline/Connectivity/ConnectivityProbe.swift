import Foundation

/// The active source: requests the health URL on ``ProbeSchedule``'s rhythm and reports
/// whether an answer came back (any HTTP status counts: the network works), and early when the
/// monitor wakes it (a request failed as it would offline), though never sooner than
/// `retryDelay` after the last probe. Runs as a plain supervised task; cancelling it stops it.
struct ConnectivityProbe: Sendable {
    let url: URL
    let timeout: Duration
    let schedule: ProbeSchedule
    let transport: any HTTPTransport
    let clock: any TimeSource
    let monitor: Mailbox<NetworkMonitor.Message>
    /// Rung by the monitor to probe now.
    let wake: WakeSignal

    /// Probes until cancelled (then returns normally), or until the monitor's mailbox closes.
    func run() async throws {
        var failures = 0
        while !Task.isCancelled {
            let started = clock.now
            wake.clear()   // this probe answers every wake so far
            let reachable = await probe()
            failures = reachable ? 0 : failures + 1
            try monitor.send(.observe(reachable ? .online : .offline, .probe))
            if await wake.wait(atMost: schedule.delay(afterFailures: failures), clock: clock) {
                // Woken early: a burst of failed requests costs one probe per retryDelay at most.
                let spacing = schedule.retryDelay - (clock.now - started)
                if spacing > .zero { do { try await clock.sleep(for: spacing) } catch { return } }
            }
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
