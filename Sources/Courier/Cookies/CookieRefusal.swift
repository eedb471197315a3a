/// Why a `Set-Cookie` (or a cookie set by hand) was not stored: logged at debug level for a
/// response's, thrown as ``NetworkError/invalidRequest(_:)`` by ``ClientCookies``.
struct CookieRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    let reason: String

    init(_ reason: String) {
        self.reason = reason
    }

    var description: String { reason }
}
