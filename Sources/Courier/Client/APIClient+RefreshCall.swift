import Foundation

extension APIClient {
    /// The refresh call of `session`: `POST <base>/<refreshPath>` with the refresh token in the
    /// body, sent by `send` (the chain after admission, without a slot) without
    /// credentials; a 2xx answer is read into tokens.
    static func refreshCall(
        _ session: Configuration.Session, base: Result<URLBuilder.Base, NetworkError>, send: @escaping @Sendable (HTTPRequest) async -> Result<HTTPResponse, NetworkError>, json: JSONCoding, clock: any TimeSource
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
            switch await send(request) {
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
