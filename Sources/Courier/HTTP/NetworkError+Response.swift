import Foundation

extension NetworkError {
    /// The error a final response's status means, or `nil` for a 2xx.
    ///
    /// 401 → `unauthorized`, 403 → `forbidden`, 404 → `notFound`, 409 → `conflict` with the body,
    /// any other status → `serverError(status, message)`, where the message comes from a JSON
    /// error body `{"message": …, "code": …}` when there is one.
    public init?(response: HTTPResponse) {
        switch response.status {
        case 200..<300: return nil
        case 401: self = .unauthorized
        case 403: self = .forbidden
        case 404: self = .notFound
        case 409: self = .conflict(body: response.body)
        default: self = .serverError(status: response.status, message: ServerErrorBody.message(in: response.body))
        }
    }
}
