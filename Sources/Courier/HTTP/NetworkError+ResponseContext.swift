import Foundation

extension NetworkError {
    /// What the pipeline adds to a response that becomes an error: the request it answers (the
    /// last hop's method and URL, for the error's description) and its body decoded as the
    /// configured error body type. Made only for an error status, so the success path pays
    /// nothing; a class, so a response carries one reference.
    final class ResponseContext: Sendable {
        let method: HTTPMethod
        let url: URL
        /// The body as ``APIClient/Configuration/errorBody`` (or the call's own type), when it
        /// decoded.
        let errorBody: (any Sendable)?

        init(method: HTTPMethod, url: URL, errorBody: (any Sendable)?) {
            self.method = method
            self.url = url
            self.errorBody = errorBody
        }
    }
}
