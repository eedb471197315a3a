public import Courier
public import Instrumentation

/// Writes a tracer's propagation fields (W3C `traceparent` and `tracestate` with an
/// OpenTelemetry tracer) into Courier's ``Courier/HTTPHeaders``, replacing any already there.
public struct HTTPHeadersInjector: Injector {
    /// An injector.
    public init() {}

    /// Sets the field `key` to `value`.
    public func inject(_ value: String, forKey key: String, into carrier: inout HTTPHeaders) {
        carrier.replaceOrAdd(name: key, value: value)
    }
}
