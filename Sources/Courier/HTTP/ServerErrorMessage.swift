/// An error body that carries the server's message: make the type you decode error bodies into
/// (``APIClient/Configuration/errorBody``, ``RequestOptions/errorBody``) conform, and
/// ``NetworkError/serverMessage``, ``NetworkError/serverCode`` and ``NetworkError/userMessage``
/// come from it.
///
/// ```swift
/// struct APIError: Decodable, Sendable, ServerErrorMessage {
///     let error: String
///     let hint: String?
///     var message: String? { error }
///     var userMessage: String? { hint }   // shown to users; `nil` keeps Courier's sentence
/// }
/// ```
public protocol ServerErrorMessage: Sendable {
    /// The server's message, for logs and ``NetworkError/serverMessage``; `nil` if it has none.
    var message: String? { get }
    /// The server's machine-readable code, for ``NetworkError/serverCode``. Default `nil`.
    var code: String? { get }
    /// A sentence for the end user, which ``NetworkError/userMessage`` shows instead of
    /// Courier's own. Default ``message``; `nil` keeps Courier's sentence.
    var userMessage: String? { get }
}

extension ServerErrorMessage {
    /// No code.
    public var code: String? { nil }
    /// The ``message``.
    public var userMessage: String? { message }
}
