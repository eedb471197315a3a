import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

extension CourierTransport {
    /// The runtime's request as Courier's: the URL is `baseURL` followed by the request's path
    /// and query (as the runtime's other transports join them), every header field kept in
    /// order, the body streamed.
    static func courierRequest(_ request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL) throws(NetworkError) -> Courier.HTTPRequest {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false),
              let target = URLComponents(string: request.path ?? "")
        else {
            throw .invalidURL("\(baseURL.absoluteString)\(request.path ?? "")")
        }
        components.percentEncodedPath = components.percentEncodedPath.removingTrailingSlash + target.percentEncodedPath
        components.percentEncodedQuery = target.percentEncodedQuery
        guard let url = components.url else { throw .invalidURL("\(baseURL.absoluteString)\(request.path ?? "")") }
        var headers = HTTPHeaders()
        for field in request.headerFields {
            headers.add(name: field.name.rawName, value: field.value)
        }
        var outgoing = Courier.HTTPRequest(method: HTTPMethod(rawValue: request.method.rawValue), url: url, headers: headers)
        if let body {
            let length: Int? = if case .known(let count) = body.length { Int(count) } else { nil }
            // A body the runtime may iterate again can be sent again (a retry, a 401's renewal).
            outgoing.bodyStream = .chunks(body.map { Data($0) }, length: length, reopenable: body.iterationBehavior == .multiple)
        }
        return outgoing
    }

    /// Courier's response head as the runtime's: the status and every header field, in order
    /// (repeated ones too).
    static func head(of response: Courier.HTTPResponse) -> HTTPTypes.HTTPResponse {
        var fields = HTTPFields()
        for field in response.headers {
            guard let name = HTTPField.Name(field.name) else { continue }
            fields.append(HTTPField(name: name, value: field.value))
        }
        return HTTPTypes.HTTPResponse(status: .init(code: response.status), headerFields: fields)
    }

    /// A response whose body Courier read whole.
    static func whole(_ response: Courier.HTTPResponse, hasBody: Bool) -> (HTTPTypes.HTTPResponse, HTTPBody?) {
        (head(of: response), hasBody ? HTTPBody(response.body) : nil)
    }

    /// The body's length as the runtime counts it: `Content-Length`, unless the body was
    /// decoded (a `Content-Encoding` makes it count the encoded bytes).
    static func length(of response: Courier.HTTPResponse) -> HTTPBody.Length {
        guard response.headers["Content-Encoding"] == nil,
              let value = response.headers["Content-Length"], let count = Int64(value), count >= 0
        else { return .unknown }
        return .known(count)
    }

    /// The response a status error carries: the status Courier's chain settled on, which the
    /// generated client switches on rather than throwing. `nil` for a failure without one.
    static func settledResponse(of error: NetworkError) -> Courier.HTTPResponse? {
        switch error {
        case .unauthorized(let response?): response
        case .forbidden(let response), .notFound(let response), .conflict(let response), .notModified(let response),
             .serverError(let response):
            response
        default: nil
        }
    }

    /// Whether responses to `method` have no body (as the runtime's other transports decide).
    static func hasNoResponseBody(_ method: HTTPTypes.HTTPRequest.Method) -> Bool {
        method == .head || method == .connect || method == .trace
    }

    /// Whether `method` is safe (a read): never put in the offline queue.
    static func isSafe(_ method: HTTPTypes.HTTPRequest.Method) -> Bool {
        method == .get || method == .head || method == .options || method == .trace
    }
}

extension String {
    /// The string without one trailing `/`.
    fileprivate var removingTrailingSlash: String {
        hasSuffix("/") ? String(dropLast()) : self
    }
}
