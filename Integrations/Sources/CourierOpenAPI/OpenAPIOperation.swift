/// The generated operation a call belongs to, tagged on every call ``CourierTransport`` sends:
/// interceptors read it as `context.tags[OpenAPIOperation.self]`.
///
/// ```swift
/// struct OperationHeader: RequestInterceptor {
///     func intercept(_ request: HTTPRequest, context: RequestContext) async throws -> RequestInterception {
///         var request = request
///         if let operation = context.tags[OpenAPIOperation.self] { request.headers["X-Operation"] = operation.id }
///         return .proceed(request)
///     }
/// }
/// ```
public struct OpenAPIOperation: Sendable, Hashable {
    /// The `operationId` of the document (`getUser`), as the generated client passes it.
    public let id: String

    /// The operation whose `operationId` is `id`.
    public init(id: String) {
        self.id = id
    }
}
