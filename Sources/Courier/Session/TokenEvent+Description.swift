import Foundation

extension TokenEvent: CustomStringConvertible {
    /// What happened to the session, in a line, never a token: `refreshed, expires
    /// 2026-05-01T10:00:00Z`.
    public var description: String {
        switch self {
        case .signedIn(let expiry): "signed in" + Self.expiry(expiry)
        case .refreshed(let expiry): "refreshed" + Self.expiry(expiry)
        case .refreshFailed(let error): "refresh failed: \(error)"
        case .sessionExpired: "session expired"
        case .signedOut: "signed out"
        case .storageFailed(let reason): "token storage failed: \(reason)"
        }
    }

    private static func expiry(_ date: Date?) -> String {
        date.map { ", expires " + $0.formatted(.iso8601) } ?? ""
    }
}
