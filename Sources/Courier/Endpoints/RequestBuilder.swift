import Foundation

/// Builds the HTTP request of an endpoint against a client's base URL (checked and split once):
/// URL, method, headers, and its body, encoded with the client's JSON settings.
struct RequestBuilder: Sendable {
    /// The base URL checked and split once; every endpoint's URL is built from it.
    let base: Result<URLBuilder.Base, NetworkError>
    private let encoder: JSONEncoder

    init(baseURL: URL, encoder: JSONEncoder) {
        base = Result { () throws(NetworkError) in try URLBuilder.Base(baseURL) }
        self.encoder = encoder
    }

    /// The URL `endpoint` is sent to.
    func url(for endpoint: UntypedEndpoint) throws(NetworkError) -> URL {
        try base.get().url(for: endpoint)
    }

    /// The request of `endpoint`: its body as bytes (JSON, forms, text, small multipart forms)
    /// or as a stream (files, multipart forms with files), with the body's `Content-Type`
    /// unless the endpoint's headers set one.
    func request(for endpoint: UntypedEndpoint) throws(NetworkError) -> HTTPRequest {
        let base = try base.get()
        let url = try base.url(for: endpoint)
        var body: Data?
        var bodyStream: HTTPBodyStream?
        switch try endpoint.body?.encoded(with: encoder) {
        case .bytes(let data): body = data
        case .stream(let stream): bodyStream = stream
        case nil: break
        }
        var request = HTTPRequest(method: endpoint.method, url: url, headers: headers(of: endpoint), body: body, knownOrigin: base.origin)
        request.bodyStream = bodyStream
        return request
    }

    /// The headers of `endpoint`'s request: its own, plus its body's `Content-Type` and the
    /// `Accept` its response type reads when it names none, with room for what the chain adds
    /// (User-Agent, Authorization).
    private func headers(of endpoint: UntypedEndpoint) -> HTTPHeaders {
        var headers = HTTPHeaders(copying: endpoint.headers, extra: 4)
        if let body = endpoint.body, !headers.contains("Content-Type") {
            headers.add(name: "Content-Type", value: body.contentType)
        }
        if !headers.contains("Accept") {
            headers.add(name: "Accept", value: endpoint.accept)
        }
        return headers
    }
}
