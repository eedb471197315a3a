public import Courier
public import ServiceLifecycle

/// A client as a swift-service-lifecycle `Service`: its ``run()`` waits until the service group
/// shuts down gracefully (or the task is cancelled), then calls the client's
/// ``Courier/APIClient/shutdown()``, which lets each component drain what it holds (queued
/// offline writes are on disk already and stay there for the next run) and ends the client's
/// event streams.
///
/// ```swift
/// let group = ServiceGroup(services: [APIClientService(client), server], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// A service group shuts its services down in reverse order: list the client before the
/// services that call it, so that it shuts down after them.
public struct APIClientService: Service {
    /// The client this service shuts down.
    public let client: APIClient

    /// A service for `client`.
    public init(_ client: APIClient) {
        self.client = client
    }

    /// Returns once graceful shutdown was triggered (or the task cancelled) and the client has
    /// shut down.
    public func run() async {
        // Throws only CancellationError: shut down the same way.
        try? await gracefulShutdown()
        await client.shutdown()
    }
}
