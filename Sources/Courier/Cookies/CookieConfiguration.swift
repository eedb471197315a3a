import Foundation

/// The client's cookie store (``APIClient/Configuration/cookies``): `Set-Cookie` of every
/// response kept (RFC 6265), and sent back with the requests they match, each redirect hop
/// by its own URL. Off by default; `APIClient.Configuration.Cookies` names this type too.
///
/// ```swift
/// var configuration = APIClient.Configuration(baseURL: URL(string: "https://api.example.com")!)
/// configuration.cookies = .init()                                        // in memory
/// configuration.cookies = .init(storageFile: URL(fileURLWithPath: "/var/lib/app/cookies.sqlite"))
/// ```
public struct CookieConfiguration: Sendable {
    /// A SQLite database file that keeps cookies with an expiry across restarts (its directory
    /// must exist). Default none: memory only. Read and written on a thread of its own; a
    /// response that changed a kept cookie returns once the change is on disk. A file that
    /// cannot be opened leaves the store in memory only (``ClientCookies`` calls that write
    /// then throw ``NetworkError/storageFailed(_:)``); a corrupt one is moved aside.
    public var storageFile: URL?
    /// Whether session cookies (those without `Expires` or `Max-Age`) are written to
    /// ``storageFile`` too. Default `false`: like a browser, a new process starts without them.
    public var keepsSessionCookies: Bool
    /// The most cookies kept in all. Default 3,000 (RFC 6265 §6.1's minimum).
    public var maxCookies: Int
    /// The most cookies kept per site (a registrable domain and its subdomains, e.g.
    /// `example.co.uk`). Default 50 (RFC 6265 §6.1's minimum).
    public var maxCookiesPerDomain: Int
    /// Domains refused as a cookie's `Domain` besides the built-in ones (single labels such as
    /// `com`, common second-level registries such as `co.uk`, shared hosting such as
    /// `github.io`): add your platform's if its subdomains belong to different owners.
    public var additionalPublicSuffixes: Set<String>
    /// Whether ``ClientSession/signOut()`` clears every cookie. Default `true`: a session cookie
    /// is a credential, and must not outlive the sign-out.
    public var clearsOnSignOut: Bool

    /// Creates cookie settings; the defaults are memory only, 3,000 cookies, 50 per site,
    /// cleared on sign-out.
    public init(
        storageFile: URL? = nil, keepsSessionCookies: Bool = false, maxCookies: Int = 3000, maxCookiesPerDomain: Int = 50,
        additionalPublicSuffixes: Set<String> = [], clearsOnSignOut: Bool = true
    ) {
        self.storageFile = storageFile
        self.keepsSessionCookies = keepsSessionCookies
        self.maxCookies = maxCookies
        self.maxCookiesPerDomain = maxCookiesPerDomain
        self.additionalPublicSuffixes = additionalPublicSuffixes
        self.clearsOnSignOut = clearsOnSignOut
    }
}
