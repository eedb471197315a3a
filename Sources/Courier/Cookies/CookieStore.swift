import Foundation

/// A client's cookies: the ``CookieJar`` under a lock, which every request's ``CookieStep``
/// reads and writes in the caller's task without a message, and, with a storage file, the
/// ``CookieFile`` that loads it once and writes its changes on a thread of its own.
///
/// Not a component: nothing here awaits slow work while holding the jar, and there is no
/// state to rebuild after a failure that the file does not already hold (docs/decisions.md).
final class CookieStore: Sendable {
    /// The jar, and whether the file's cookies are in it yet (always, without a file).
    struct State: Sendable {
        var jar: CookieJar
        var loaded: Bool
    }

    let state: Locked<State>
    private let file: CookieFile?
    private let clock: any TimeSource
    /// Whether signing out clears the cookies.
    let clearsOnSignOut: Bool

    init(_ configuration: CookieConfiguration, clock: any TimeSource) {
        let jar = CookieJar(
            maxCookies: configuration.maxCookies, maxPerSite: configuration.maxCookiesPerDomain,
            suffixes: PublicSuffixes(additional: configuration.additionalPublicSuffixes),
            recordsChanges: configuration.storageFile != nil, savesSessionCookies: configuration.keepsSessionCookies)
        let state = Locked(State(jar: jar, loaded: configuration.storageFile == nil))
        self.state = state
        file = configuration.storageFile.map { CookieFile(path: $0.path, state: state, clock: clock) }
        self.clock = clock
        clearsOnSignOut = configuration.clearsOnSignOut
    }

    /// The `Cookie` header value for a request to `url`, if any cookie applies.
    nonisolated(nonsending) func header(for url: CookieURL) async -> String? {
        let now = clock.currentDate
        if let answer = state.withLock({ state -> String?? in state.loaded ? .some(state.jar.header(for: url, now: now)) : .none }) {
            return answer
        }
        await file?.load()
        return state.withLock { $0.jar.header(for: url, now: now) }
    }

    /// The `Cookie` header value a request to `url` would get now, without marking its cookies
    /// used (the cache's partition; the cookie step sends them).
    nonisolated(nonsending) func expectedHeader(for url: CookieURL) async -> String? {
        await read { jar, now in CookieJar.headerValue(of: jar.cookies(for: url, now: now)) }
    }

    /// Stores the cookies of a response's `Set-Cookie` fields from `url`; returns those
    /// ignored, and why, and, with a file, returns once what changed is written, or with the
    /// write's failure (the changes stay in the jar for the next write).
    nonisolated(nonsending) func receive(
        _ fields: [String], from url: CookieURL
    ) async -> (refusals: [CookieRefusal], writeFailure: NetworkError?) {
        await file?.load()
        let now = clock.currentDate
        let (refusals, changed) = state.withLock { state in
            var refusals: [CookieRefusal] = []
            for field in fields {
                for value in SetCookieParser.values(in: field) {
                    do throws(CookieRefusal) {
                        try state.jar.receive(value, from: url, now: now)
                    } catch {
                        refusals.append(error)
                    }
                }
            }
            return (refusals, !state.jar.unsaved.isEmpty)
        }
        // The response is the caller's all the same: the failure is the step's to log.
        guard changed, let file else { return (refusals, nil) }
        do throws(NetworkError) {
            try await file.flush()
            return (refusals, nil)
        } catch {
            return (refusals, error)
        }
    }

    /// Reads the jar (once the file's cookies are in it).
    nonisolated(nonsending) func read<Value>(_ body: (CookieJar, Date) -> Value) async -> Value {
        await file?.load()
        let now = clock.currentDate
        return state.withLock { body($0.jar, now) }
    }

    /// Changes the jar by hand, then writes the change to the file, if any.
    /// - Throws: ``NetworkError/invalidRequest(_:)`` for a cookie refused, and
    ///   ``NetworkError/storageFailed(_:)`` when the file could not be written.
    nonisolated(nonsending) func change<Value: Sendable>(
        _ body: (inout CookieJar, Date) throws(CookieRefusal) -> Value
    ) async throws(NetworkError) -> Value {
        await file?.load()
        let now = clock.currentDate
        let result = state.withLock { state -> Result<Value, CookieRefusal> in
            do throws(CookieRefusal) {
                return .success(try body(&state.jar, now))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let value):
            try await file?.flush()
            return value
        case .failure(let refusal):
            throw .invalidRequest("cookie refused: \(refusal.reason)")
        }
    }
}
