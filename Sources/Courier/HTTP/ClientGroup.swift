import Foundation

/// The client's groups whose component exists only when the configuration asks for it
/// (`client.session`, `client.cache`, `client.offline`, `client.connectivity`, `client.cookies`),
/// and the one rule each follows without it: every call throws
/// ``NetworkError/componentUnavailable(_:)`` carrying the group's name (its `rawValue`), and every
/// event stream finishes at once. The error's description names the configuration field to set.
///
/// Here, beside the error model, rather than in `Client/`, because the error's description reads
/// it: the groups' names are its vocabulary.
@usableFromInline
enum ClientGroup: String, Sendable {
    case session, cache, offline, connectivity, cookies

    /// How many events a stream keeps for a subscriber that falls behind, unless it asks for
    /// another number (``APIClient/eventBuffer``).
    @usableFromInline static let eventBuffer = 1000

    /// The configuration field that gives the client this group's component.
    var configurationField: String {
        switch self {
        case .session: "APIClient.Configuration.session"
        case .cache: "APIClient.Configuration.caching"
        case .offline: "APIClient.Configuration.offline"
        case .connectivity: "APIClient.Configuration.connectivity (or .offline)"
        case .cookies: "APIClient.Configuration.cookies"
        }
    }

    /// What every call of the group throws when the client has no such component.
    var unavailable: NetworkError { .componentUnavailable(rawValue) }

    /// What every event stream of the group returns when the client has no such component: a
    /// stream that has already finished, so a `for await` loop over it ends rather than waits
    /// for ever.
    static func finished<Element>() -> AsyncStream<Element> {
        AsyncStream { $0.finish() }
    }
}
