import Foundation

extension NetworkError {
    /// A sentence fit to show to an end user, in the user's preferred language when Courier
    /// has it (English and Spanish built in; see ``UserMessages``).
    public var userMessage: String { userMessage(using: .preferred) }

    /// A sentence fit to show to an end user, from `messages`; or the server's own, when the
    /// ``errorBody`` it was decoded into gives one (``ServerErrorMessage/userMessage``).
    public func userMessage(using messages: UserMessages) -> String {
        if let body = response?.errorContext?.errorBody as? any ServerErrorMessage, let text = body.userMessage, !text.isEmpty {
            return text
        }
        let sentence: String
        switch self {
        case .invalidURL, .invalidRequest, .encodingError: sentence = messages.requestNotPrepared
        case .noConnection, .notCached: sentence = messages.noConnection
        case .cannotConnect, .circuitOpen: sentence = messages.cannotConnect
        case .connectionLost: sentence = messages.connectionLost
        case .timeout: sentence = messages.timeout
        case .unauthorized(let response?) where response.answersUnauthenticatedRequest: sentence = messages.credentialsRejected
        case .unauthorized, .invalidToken: sentence = messages.unauthorized
        case .forbidden: sentence = messages.forbidden
        case .notFound: sentence = messages.notFound
        case .conflict: sentence = messages.conflict
        case .notModified: sentence = messages.notModified
        case .serverError(let response) where (400..<500).contains(response.status): sentence = messages.refused
        case .serverError(let response) where response.status >= 500: sentence = messages.serverProblem
        case .serverError, .graphQL, .invalidResponse, .malformedResponse, .tooManyRedirects: sentence = messages.unexpectedAnswer
        case .decodingError: sentence = messages.unreadableResponse
        case .securityError: sentence = messages.notSecure
        case .responseTooLarge: sentence = messages.tooLarge
        case .cancelled: sentence = messages.cancelled
        case .overloaded, .componentRestarted, .queueFull: sentence = messages.busy
        case .componentUnavailable: sentence = messages.unavailable
        case .unknown, .storageFailed: sentence = messages.unknown
        }
        let status = statusCode.map(String.init) ?? "–"
        return sentence.replacingOccurrences(of: "{status}", with: status)
    }
}
