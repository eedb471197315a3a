import Foundation

extension NetworkError {
    /// The error a final response's status means, or `nil` for a 2xx.
    ///
    /// 304 → `notModified`, 401 → `unauthorized`, 403 → `forbidden`, 404 → `notFound`,
    /// 409 → `conflict`, any other status → `serverError`. The error keeps the response, with its
    /// body cut to ``keptBodyBytes``.
    public init?(response: borrowing HTTPResponse) {
        guard !response.isSuccess else { return nil }
        var kept = copy response
        if kept.body.count > Self.keptBodyBytes { kept.body = kept.body.prefix(Self.keptBodyBytes) }
        switch response.status {
        case 304: self = .notModified(kept)
        case 401: self = .unauthorized(kept)
        case 403: self = .forbidden(kept)
        case 404: self = .notFound(kept)
        case 409: self = .conflict(kept)
        default: self = .serverError(kept)
        }
    }
}
