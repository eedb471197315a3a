import Foundation

/// A GraphQL subscription's results as they come: an `AsyncSequence` made by
/// ``ClientGraphQL/subscribe(_:headers:options:stallTimeout:maxPartBytes:)``.
///
/// ```swift
/// for try await result in client.graphQL.subscribe(ReviewAdded()) { show(result.data) }
/// ```
///
/// - **The connection** is opened by an iterator's first `next()` (one `POST` answered by a
///   `multipart/mixed` body, Apollo's protocol, or by a `text/event-stream` with graphql-sse:
///   ``GraphQLConfiguration/subscriptionTransport``) and read only as fast as the results are:
///   a slow consumer pauses the transfer (the transport holds a bounded amount), never memory.
///   A subscription refused before its stream with GraphQL errors (a bad document) throws
///   ``NetworkError/graphQL(_:)``.
/// - **The end** (multipart): the server's closing delimiter or a `{"payload": null}` part end
///   the sequence; errors without a payload throw ``NetworkError/graphQL(_:)``; a broken
///   connection, a stall past the stall timeout, or a part over `maxPartBytes` throw the
///   transport's error (no reconnection). Heartbeats are skipped.
/// - **The end** (graphql-sse): a `complete` event, or the stream's normal end, ends the
///   sequence; errors come in a `next` event's result (the server then completes); a broken
///   connection or a stall subscribes again (see ``ServerSentEvents``); an event over
///   `maxPartBytes` throws ``NetworkError/responseTooLarge(limit:)``.
/// - **Over a WebSocket** (``GraphQLSubscriptionTransport/graphQLTransportWS``,
///   ``GraphQLSubscriptionTransport/graphQLWS``, ``GraphQLSubscriptionTransport/webSocket``): the
///   first `next()` joins the endpoint's shared socket (opening it, with `headers` on its
///   handshake, if this is the first subscription under the signed-in identity). `next` (`data`)
///   messages are results; `complete` ends the sequence; an `error` message throws
///   ``NetworkError/graphQL(_:)``; a drop reconnects and subscribes again
///   (``GraphQLConfiguration/webSocket``), and what ends the socket for good (the policy gives
///   up, a protocol break, a close that cannot succeed again, a refused renewal) throws.
///   Results wait for the reader without a bound (a slow one must not stall the others);
///   `stallTimeout` and `maxPartBytes` do not apply (the socket's own limits do).
/// - **Cancellation**: cancelling the reading task, or dropping the iterator (leaving a `for`
///   loop), closes the connection (over a WebSocket: sends `complete`, and closes the socket if
///   it was the last subscription on it).
public struct GraphQLSubscriptionResults<Subscription: GraphQLSubscription>: AsyncSequence, Sendable {
    /// A result: the data and the errors of one part.
    public typealias Element = GraphQLResult<Subscription.Data>
    /// What ends the sequence early.
    public typealias Failure = NetworkError

    let graphQL: ClientGraphQL
    let subscription: Subscription
    let headers: HTTPHeaders
    let options: RequestOptions
    let stallTimeout: Duration
    let maxPartBytes: Int

    /// An iterator: its first `next()` opens a connection of its own.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(results: self)
    }

    /// Reads the results of one connection.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private enum State {
            case notStarted
            case reading(response: HTTPResponse, bytes: ResponseBytes.AsyncIterator, parser: MultipartMixedParser)
            case events(ServerSentEvents.AsyncIterator)
            case socket(AsyncStream<GraphQLWebSocketEvent>.Iterator)
            case finished
        }

        private let results: GraphQLSubscriptionResults
        private var state = State.notStarted
        /// Results of parts already parsed, not yet handed out.
        private var ready: [Element] = []
        /// What ended the subscription after the results in ``ready``: thrown once they are out.
        private var failure: NetworkError?

        init(results: GraphQLSubscriptionResults) {
            self.results = results
        }

        /// The next result; `nil` once the subscription ended. Its data is merged into the
        /// normalized records, if any.
        public mutating func next() async throws(NetworkError) -> Element? {
            guard let result = try await nextResult() else { return nil }
            if let records = results.graphQL.records {
                records.write(responseBody: result.response.body, try records.access(results.subscription))
            }
            return result
        }

        private mutating func nextResult() async throws(NetworkError) -> Element? {
            while true {
                if !ready.isEmpty { return ready.removeFirst() }
                if let failure {
                    self.failure = nil
                    throw failure
                }
                switch state {
                case .finished:
                    return nil
                case .notStarted:
                    state = .finished   // unless the connection opens
                    if let protocols = results.graphQL.configuration.subscriptionTransport.webSocketProtocols {
                        state = .socket(try await results.graphQL.webSocketEvents(
                            results.subscription, protocols: protocols, headers: results.headers, options: results.options
                        ).makeAsyncIterator())
                        continue
                    }
                    if results.graphQL.configuration.subscriptionTransport == .serverSentEvents {
                        state = .events(results.graphQL.events(
                            results.subscription, headers: results.headers, options: results.options, stallTimeout: results.stallTimeout,
                            maxEventBytes: results.maxPartBytes
                        ).makeAsyncIterator())
                        continue
                    }
                    let (response, body) = try await results.graphQL.open(
                        results.subscription, headers: results.headers, options: results.options, stallTimeout: results.stallTimeout)
                    let contentType = response.headers["Content-Type"] ?? ""
                    guard contentType.lowercased().hasPrefix("multipart/mixed") else {
                        // One JSON answer: the server refused the subscription, or sent one result.
                        ready = [try await Self.single(response, body, limit: results.maxPartBytes)]
                        continue
                    }
                    let parser = MultipartMixedParser(
                        boundary: MultipartMixedParser.boundary(inContentType: contentType), maxPartBytes: results.maxPartBytes)
                    state = .reading(response: response, bytes: body.makeAsyncIterator(), parser: parser)
                case .events(var events):
                    state = .finished   // unless more comes
                    let event: ServerSentEvent?
                    do throws(NetworkError) {
                        event = try await events.next()
                    } catch {
                        throw ClientGraphQL.withGraphQLErrors(error)
                    }
                    guard let event else { return nil }
                    switch event.type {
                    case "next":
                        guard var response = events.response else { throw .invalidResponse("a graphql-sse event came without a response") }
                        response.body = Data(event.data.utf8)
                        state = .events(events)
                        return try GraphQLEnvelope.result(Subscription.Data.self, from: response, decoder: JSONDecoder())
                    case "complete":
                        events.finish()   // closes the connection now, not when the iterator goes
                        return nil
                    default:
                        state = .events(events)   // not graphql-sse's: skipped
                    }
                case .socket(var events):
                    state = .finished   // unless more comes
                    guard let event = await events.next() else {
                        // Cancellation ends the stream too (and stops the subscription).
                        if Task.isCancelled { throw .cancelled }
                        return nil
                    }
                    switch event {
                    case .result(let payload, var response):
                        response.body = payload
                        state = .socket(events)
                        return try GraphQLEnvelope.result(Subscription.Data.self, from: response, decoder: JSONDecoder())
                    case .failed(let error):
                        throw error
                    }
                case .reading(let response, var bytes, var parser):
                    state = .finished   // unless more comes
                    guard let chunk = try await bytes.next() else { return nil }
                    let bodies: [Data]
                    do {
                        bodies = try parser.feed(chunk)
                    } catch {
                        throw .responseTooLarge(limit: results.maxPartBytes)
                    }
                    parts: for body in bodies {
                        let part: GraphQLSubscriptionPart<Subscription.Data>
                        do {
                            part = try JSONDecoder().decode(GraphQLSubscriptionPart<Subscription.Data>.self, from: body)
                        } catch {
                            throw .decodingError(underlying: error, bodyPrefix: String(decoding: body.prefix(256), as: UTF8.self))
                        }
                        switch part.kind {
                        case .heartbeat:
                            continue
                        case .result(let payload):
                            var partResponse = response
                            partResponse.body = body
                            ready.append(GraphQLResult(
                                data: payload.data, errors: payload.errors ?? [], extensions: payload.extensions, response: partResponse))
                        case .end:
                            return ready.isEmpty ? nil : ready.removeFirst()
                        case .failure(let errors):
                            // The results before it are handed out first.
                            failure = .graphQL(GraphQLFailure(errors: errors, data: nil, response: response))
                            break parts
                        }
                    }
                    if failure == nil, !parser.isFinished { state = .reading(response: response, bytes: bytes, parser: parser) }
                }
            }
        }

        /// The one result of a subscription answered with plain JSON.
        private static func single(_ response: HTTPResponse, _ body: ResponseBytes, limit: Int) async throws(NetworkError) -> Element {
            var whole = response
            whole.body = try await body.collect(upTo: limit)
            let result = try GraphQLEnvelope.result(Subscription.Data.self, from: whole, decoder: JSONDecoder())
            if result.data == nil, !result.errors.isEmpty { throw .graphQL(GraphQLFailure(errors: result.errors, data: nil, response: whole)) }
            return result
        }
    }
}
