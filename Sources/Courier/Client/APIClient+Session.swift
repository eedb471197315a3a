import Foundation

extension APIClient {
    /// Starts a session with `tokens` (after your login call): they are persisted, and every
    /// request that needs credentials carries the access token from now on.
    /// - Throws: ``NetworkError/invalidRequest(_:)`` if the client has no
    ///   ``Configuration/session``.
    public func signIn(_ tokens: Tokens) async throws(NetworkError) {
        try await session().set(tokens)
    }

    /// Ends the session: the tokens are cleared from memory and persistence, and requests that
    /// need credentials fail with `unauthorized` (without being sent) until the next sign-in.
    /// The session's cached responses are dropped too.
    public func signOut() async throws(NetworkError) {
        let session = try session()
        let identity = session.credential.value.identity
        try await session.set(nil)
        if let identity { components.cache?.forget(.dropIdentity(identity)) }
    }

    /// Refreshes the access token now, whatever its expiry (one refresh, shared with any
    /// request that needed one at the same time).
    /// - Throws: ``NetworkError/unauthorized(_:)`` if there is no session or the server
    ///   rejected the refresh token; the refresh call's error if it failed otherwise.
    public func refreshSession() async throws(NetworkError) {
        _ = try await session().forceRefresh()
    }

    /// Where the session stands; never a token.
    public func sessionState() async throws(NetworkError) -> SessionState {
        try await session().state()
    }

    /// Every token event from now on (signed in, refreshed, refresh failed, session expired,
    /// signed out, storage failed). Events never carry a token.
    public func tokenEvents(buffer: Int = 1000) -> AsyncStream<TokenEvent> {
        components.tokenEvents.subscribe(bufferingPolicy: .bufferingNewest(buffer))
    }

    private func session() throws(NetworkError) -> TokenStore.Handle {
        guard let tokens = components.tokens else { throw .invalidRequest("the client has no session (APIClient.Configuration.session)") }
        return tokens
    }

    /// The refresh call of `session`: `POST <base>/<refreshPath>` with the refresh token in the
    /// body, sent through the pipeline's execution without an admission slot and without
    /// credentials; a 2xx answer is read into tokens.
    static func refreshCall(
        _ session: Configuration.Session, base: Result<URLBuilder.Base, NetworkError>, pipeline: RequestPipeline.Handle, json: JSONCoding, clock: any TimeSource
    ) -> @Sendable (String) async -> Result<Tokens, NetworkError> {
        let (encoder, decoder) = (json.makeEncoder(), json.makeDecoder())
        let segments = (session.refreshVersion.map { [$0.rawValue] } ?? []) + URLBuilder.segments(of: session.refreshPath)
        return { refreshToken in
            var request: HTTPRequest
            do throws(NetworkError) {
                let base = try base.get()
                request = HTTPRequest(method: .post, url: try base.url(segments: segments))
                request.knownOrigin = base.origin
                do {
                    request.body = try session.refreshBody(refreshToken, encoder)
                } catch {
                    throw .encodingError(underlying: error)
                }
            } catch {
                return .failure(error)
            }
            request.headers = ["Content-Type": "application/json", "Accept": "application/json"]
            switch await pipeline.sendUnadmitted(request) {
            case .failure(let error):
                return .failure(error)
            case .success(let response):
                if let error = NetworkError(response: response) { return .failure(error) }
                do {
                    return .success(try session.readTokens(response, decoder, clock.currentDate))
                } catch let error as NetworkError {
                    return .failure(error)
                } catch {
                    return .failure(.decodingError(underlying: error, bodyPrefix: "(refresh response withheld: it carries tokens)"))
                }
            }
        }
    }
}
