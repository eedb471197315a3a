import Foundation

/// The sentences ``NetworkError/userMessage`` shows end users, one per kind of error. English
/// and Spanish are built in; an app localises by starting from one and replacing what it wants:
///
///     var messages = UserMessages.english
///     messages.noConnection = String(localized: "offline.banner")
///     error.userMessage(using: messages)
///
/// `{status}` in a sentence is replaced by the response's status code.
public struct UserMessages: Sendable, Equatable {
    /// The request could not be built or sent as asked (bad URL, header, body).
    public var requestNotPrepared: String
    /// The device has no network (and, for a cache-only read, nothing was stored).
    public var noConnection: String
    /// The server could not be reached (refused, not found, unreachable, TLS) while the device
    /// has a network.
    public var cannotConnect: String
    /// The connection to the server broke before its answer.
    public var connectionLost: String
    /// A timeout or the request's deadline passed.
    public var timeout: String
    /// 401 to a request that carried credentials (the session's token), or no credentials to
    /// send.
    public var unauthorized: String
    /// 401 to a request that carried no `Authorization` (a sign-in whose password was wrong).
    public var credentialsRejected: String
    /// 403.
    public var forbidden: String
    /// 404.
    public var notFound: String
    /// 409.
    public var conflict: String
    /// 304 to a decoded call.
    public var notModified: String
    /// Another 4xx (`{status}` is the code).
    public var refused: String
    /// A 5xx (`{status}` is the code).
    public var serverProblem: String
    /// Any other status, or a response that broke HTTP's rules (`{status}` is the code, if any).
    public var unexpectedAnswer: String
    /// The response could not be read.
    public var unreadableResponse: String
    /// A security rule refused the exchange.
    public var notSecure: String
    /// The response was over the size limit.
    public var tooLarge: String
    /// The write was saved in the offline queue, to be sent when the connection is back (for an
    /// ``OfflineDelivery/queued(itemID:)`` outcome: not an error).
    public var queued: String
    /// The caller cancelled.
    public var cancelled: String
    /// Overloaded or restarting: try again soon.
    public var busy: String
    /// Shut down.
    public var unavailable: String
    /// Anything else.
    public var unknown: String

    /// The built-in English sentences.
    public static let english = UserMessages(
        requestNotPrepared: "The request could not be prepared.",
        noConnection: "No internet connection. Check your connection and try again.",
        cannotConnect: "The server cannot be reached right now. Please try again later.",
        connectionLost: "The connection to the server was lost. Please try again.",
        timeout: "The request took too long. Please try again.",
        unauthorized: "Your session has expired. Please sign in again.",
        credentialsRejected: "Those credentials were not accepted. Check them and try again.",
        forbidden: "You don't have permission to do this.",
        notFound: "The requested resource does not exist.",
        conflict: "This was changed elsewhere. Refresh and try again.",
        notModified: "Nothing has changed.",
        refused: "The request was refused ({status}).",
        serverProblem: "The server had a problem ({status}). Please try again later.",
        unexpectedAnswer: "The server gave an unexpected answer ({status}).",
        unreadableResponse: "The server's response could not be read.",
        notSecure: "The connection is not secure.",
        tooLarge: "The server's response was too large.",
        queued: "Saved. It will be sent when the connection is back.",
        cancelled: "The request was cancelled.",
        busy: "The service is busy. Please try again.",
        unavailable: "The service is not available.",
        unknown: "Something went wrong.")

    /// The built-in Spanish sentences.
    public static let spanish = UserMessages(
        requestNotPrepared: "No se pudo preparar la solicitud.",
        noConnection: "No hay conexión a internet. Comprueba tu conexión e inténtalo de nuevo.",
        cannotConnect: "No se puede conectar con el servidor en este momento. Inténtalo más tarde.",
        connectionLost: "Se perdió la conexión con el servidor. Inténtalo de nuevo.",
        timeout: "La solicitud tardó demasiado. Inténtalo de nuevo.",
        unauthorized: "Tu sesión ha caducado. Vuelve a iniciar sesión.",
        credentialsRejected: "Esas credenciales no fueron aceptadas. Revísalas e inténtalo de nuevo.",
        forbidden: "No tienes permiso para hacer esto.",
        notFound: "El recurso solicitado no existe.",
        conflict: "Esto se modificó en otro lugar. Actualiza e inténtalo de nuevo.",
        notModified: "No ha habido cambios.",
        refused: "La solicitud fue rechazada ({status}).",
        serverProblem: "El servidor tuvo un problema ({status}). Inténtalo más tarde.",
        unexpectedAnswer: "El servidor dio una respuesta inesperada ({status}).",
        unreadableResponse: "No se pudo leer la respuesta del servidor.",
        notSecure: "La conexión no es segura.",
        tooLarge: "La respuesta del servidor era demasiado grande.",
        queued: "Guardado. Se enviará cuando vuelva la conexión.",
        cancelled: "La solicitud se canceló.",
        busy: "El servicio está ocupado. Inténtalo de nuevo.",
        unavailable: "El servicio no está disponible.",
        unknown: "Algo salió mal.")

    /// Spanish when the user's first preferred language is Spanish, English otherwise.
    public static var preferred: UserMessages {
        Locale.preferredLanguages.first?.lowercased().hasPrefix("es") == true ? .spanish : .english
    }
}
