/// What happened to a request, for metrics, logs and tests (Alamofire's EventMonitor, the actor
/// way). Subscribe with ``APIClient/events(buffer:)``; nothing is built when nobody listens.
public enum RequestEvent: Sendable {
    /// The pipeline admitted the request and began its first attempt. `url` is redacted;
    /// `operation` is the call's ``RequestOptions/operationName``, if it has one.
    case started(RequestID, method: HTTPMethod, url: String, operation: String?)
    /// Attempt number `number` is being sent.
    case attempt(RequestID, number: Int)
    /// A `status` redirect is being followed to `url` (redacted).
    case redirected(RequestID, status: Int, to: String)
    /// Attempt `attempt` failed and the request will be tried again after `delay`.
    case retrying(RequestID, attempt: Int, delay: Duration, reason: String)
    /// The request succeeded with `status`: a 2xx, or a 3xx that was not followed.
    case finished(RequestID, status: Int, attempts: Int, duration: Duration)
    /// The request failed with `error` (an error status, a transport error, cancellation…).
    case failed(RequestID, error: NetworkError, attempts: Int, duration: Duration)
    /// The cache answered the request from storage, without a network exchange (a fresh hit, a
    /// `cacheOnly` hit, or a stale response served while it is revalidated): a `method`
    /// request to `url` (redacted), answered with the stored `status`, stored `age` ago. No
    /// other event is published about this request; a revalidation it starts is a request of
    /// its own.
    case servedFromCache(RequestID, method: HTTPMethod, url: String, status: Int, age: Duration)
    /// An identical GraphQL query already in flight will answer this one (a client without a
    /// cache shares them): a `method` request to `url` (redacted), the call's `operation`. It
    /// sends nothing of its own, and no other event is published about it.
    case shared(RequestID, method: HTTPMethod, url: String, operation: String?)
    /// The circuit breaker of `origin` (`https://host:port`) went `from` one state `to` another
    /// (``CircuitBreakerPolicy``), on an attempt of this request (its refusal, its probe, or its
    /// outcome). A breaker's changes are published in the order they happen.
    case circuitBreakerChanged(RequestID, origin: String, from: CircuitBreakerState, to: CircuitBreakerState)
    /// A hedge of this request's current attempt went out (``HedgingPolicy``), `after` the
    /// attempt started; the first good answer of the two wins.
    case hedged(RequestID, after: Duration)
    /// Admission refused this request with ``NetworkError/overloaded``: the queue was full of
    /// calls as urgent as it, or it waited and a more urgent call took its place. `priority`
    /// is its ``RequestPriority``.
    case shed(RequestID, priority: RequestPriority)
    /// The adaptive concurrency limit of `origin` (`https://host:port`) changed to `limit`
    /// calls in flight (``ConcurrencyLimitPolicy``), on the sample of this request, which had
    /// just finished.
    case concurrencyLimitChanged(RequestID, origin: String, limit: Int)

    /// The request this event is about.
    public var id: RequestID {
        switch self {
        case .started(let id, _, _, _), .attempt(let id, _), .redirected(let id, _, _), .retrying(let id, _, _, _),
             .finished(let id, _, _, _), .failed(let id, _, _, _), .servedFromCache(let id, _, _, _, _),
             .shared(let id, _, _, _),
             .circuitBreakerChanged(let id, _, _, _), .hedged(let id, _), .shed(let id, _),
             .concurrencyLimitChanged(let id, _, _):
            id
        }
    }
}
