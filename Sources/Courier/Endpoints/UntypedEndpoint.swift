import Foundation

/// Everything an ``Endpoint`` holds but the type its response decodes to. The client builds and
/// sends requests from this value, so that code is not generic: generic, it looked up the
/// `Endpoint<Value>` type at run time on every request, since it cannot be specialised for the
/// caller's types across the module boundary.
@usableFromInline
struct UntypedEndpoint: Sendable {
    var segments: [String]
    var hasTrailingSlash: Bool
    var method: HTTPMethod
    var query: [URLQueryItem]
    var headers: HTTPHeaders
    var body: RequestBody?
    /// The `Accept` sent unless `headers` has one: `application/json`, or `*/*` for an
    /// endpoint read as text or bytes.
    var accept: String
    var version: APIVersion?
    var options: RequestOptions
}
