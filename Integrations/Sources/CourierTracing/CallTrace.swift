import Courier
import Foundation
import Synchronization
import Tracing

/// One traced call: its span, and the span of the attempt running now. Travels to the attempts
/// in the call's ``Courier/RequestOptions/tags``, where ``TracingInterceptor`` finds it.
final class CallTrace: Sendable {
    let tracer: any Tracer
    let span: any Span
    let redaction: Redaction
    private let state = Mutex(State())

    private struct State {
        var attempt: (any Span)?
        var attempts = 0
        var ended = false
    }

    init(tracer: any Tracer, span: any Span, redaction: Redaction) {
        self.tracer = tracer
        self.span = span
        self.redaction = redaction
    }

    /// Starts the span of the attempt about to send `request` (ending the previous one, which
    /// got no response), a child of the call's, and injects its context into the headers. After
    /// the call has ended (a stale-while-revalidate fetch the call started), no span is started
    /// and the call's context is injected.
    func startAttempt(_ request: inout HTTPRequest, _ context: RequestContext) {
        let started: (any Span)? = state.withLock { state in
            guard !state.ended else { return nil }
            if let previous = state.attempt {
                previous.setStatus(SpanStatus(code: .error, message: "the attempt ended without a response"))
                previous.attributes["error.type"] = "_OTHER"
                previous.end()
            }
            let span = tracer.startSpan(
                HTTPAttributes.spanName(request.method), context: self.span.context, ofKind: .client)
            HTTPAttributes.describe(request, on: span, redaction: redaction)
            if state.attempts > 0 { span.attributes["http.request.resend_count"] = state.attempts }
            span.attributes["courier.request.id"] = Int(truncatingIfNeeded: context.id.rawValue)
            span.attributes["courier.attempt"] = context.attempt
            state.attempts += 1
            state.attempt = span
            return span
        }
        tracer.inject((started ?? span).context, into: &request.headers, using: HTTPHeadersInjector())
    }

    /// Ends the running attempt's span with `response`'s status.
    func endAttempt(_ response: HTTPResponse) {
        guard let span = state.withLock({ state in defer { state.attempt = nil }; return state.attempt }) else { return }
        HTTPAttributes.record(status: response.status, on: span)
        span.end()
    }

    /// Ends the call: a still-running attempt's span (it got no response) with `error`, then
    /// the call's. Attempts that start later get no span.
    func end(_ outcome: Result<HTTPResponse, NetworkError>) {
        let attempt = state.withLock { state in
            state.ended = true
            defer { state.attempt = nil }
            return state.attempt
        }
        if let attempt {
            if case .failure(let error) = outcome { HTTPAttributes.record(error, on: attempt) }
            attempt.end()
        }
        switch outcome {
        case .success(let response):
            HTTPAttributes.record(status: response.status, on: span)
            if let metrics = response.metrics {
                span.attributes["courier.request.id"] = Int(truncatingIfNeeded: metrics.id.rawValue)
                span.attributes["courier.attempts"] = metrics.attempts
                span.attributes["courier.redirects"] = metrics.redirects
            } else {
                span.attributes["courier.cache.hit"] = true
            }
        case .failure(let error):
            HTTPAttributes.record(error, on: span)
        }
        span.end()
    }
}
