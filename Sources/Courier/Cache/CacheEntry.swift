import Foundation

/// A stored response and what the cache knows about its freshness (RFC 9111 §4.2): when it was
/// stored, its age then, its freshness lifetime, its `Cache-Control`, and the request header
/// values it varies on. A plain value; every decision about it is a pure function of the time.
struct CacheEntry: Sendable {
    var response: HTTPResponse
    /// When it was stored or last revalidated.
    var storedAt: Date
    /// Its `Age` (seconds) when stored.
    var initialAge: Int
    /// How long it is fresh, in seconds of age.
    var lifetime: Int
    var control: CacheControl
    /// The request header values the response varies on (lowercased names).
    var varying: [String: String]

    /// What it costs against the byte limit: the body and the header fields.
    var size: Int {
        response.body.count + response.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 } + 64
    }

    /// Its age at `now`, in seconds.
    func age(at now: Date) -> Int {
        initialAge + max(0, Int(now.timeIntervalSince(storedAt).rounded(.down)))
    }

    /// Its response as served from storage at `now`, marked with its age.
    func served(at now: Date) -> HTTPResponse {
        var served = response
        served.cacheAge = age(at: now)
        return served
    }

    /// Whether it may be served without asking the server.
    func isFresh(at now: Date) -> Bool {
        !control.noCache && age(at: now) < lifetime
    }

    /// Whether, stale, it may be served while a revalidation runs in the background.
    func servableWhileRevalidating(at now: Date) -> Bool {
        guard !control.mustRevalidate, !control.noCache, let window = control.staleWhileRevalidate else { return false }
        return age(at: now) < lifetime + window
    }

    /// Whether, stale, it may be served when the network fails.
    func servableOnError(at now: Date) -> Bool {
        guard !control.mustRevalidate, let window = control.staleIfError else { return false }
        return age(at: now) < lifetime + window
    }

    /// Whether it can no longer be served without asking the server at `now`: not fresh, and
    /// past its stale-while-revalidate and stale-if-error windows (`clearExpired` drops it).
    func isExpired(at now: Date) -> Bool {
        !isFresh(at: now) && !servableWhileRevalidating(at: now) && !servableOnError(at: now)
    }

    /// `If-None-Match` / `If-Modified-Since` for revalidating it, if it has validators.
    var validators: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        if let etag = response.headers["ETag"] { fields.append(("If-None-Match", etag)) }
        if let modified = response.headers["Last-Modified"] { fields.append(("If-Modified-Since", modified)) }
        return fields
    }

    /// Whether a request with `headers` has the same values of the headers this entry varies on.
    func matches(_ headers: HTTPHeaders) -> Bool {
        varying.allSatisfy { headers[$0.key] ?? "" == $0.value }
    }

    /// The entry for `response` to a request with `requestHeaders` (as the server got them), or
    /// `nil` if it must not be stored: not a 200 or
    /// 203, `no-store` on either side, `Vary: *`, a ``CacheTTL/noCache`` request, or nothing to
    /// reuse (no lifetime, no validator, and no stale-while-revalidate or stale-if-error window
    /// left).
    static func make(response: borrowing HTTPResponse, requestHeaders: HTTPHeaders, ttl: CacheTTL, defaultTTL: Int, now: Date) -> CacheEntry? {
        guard response.status == 200 || response.status == 203 else { return nil }
        let control = CacheControl(response.headers)
        guard !control.noStore, !CacheControl(requestHeaders).noStore else { return nil }
        var varying: [String: String] = [:]
        for value in response.headers.values(for: "Vary") {
            for name in value.split(separator: ",") {
                let name = name.trimmingCharacters(in: .whitespaces).lowercased()
                if name == "*" { return nil }
                if !name.isEmpty { varying[name] = requestHeaders[name] ?? "" }
            }
        }
        guard let ttlSeconds = ttl.seconds(defaultTTL: defaultTTL, storedAt: now) else { return nil }
        var lifetime = ttlSeconds
        if let maxAge = control.maxAge {
            lifetime = maxAge
        } else if let expires = response.headers["Expires"] {
            // An invalid Expires (e.g. "0") means already expired.
            let origin = response.headers["Date"].flatMap(HTTPDate.parse) ?? now
            lifetime = HTTPDate.parse(expires).map { max(0, Int($0.timeIntervalSince(origin).rounded(.down))) } ?? 0
        }
        let age = response.headers["Age"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { max(0, $0) } ?? 0
        // What is stored answers later calls, which are not the request that fetched it.
        var stored = copy response
        stored.metrics = nil
        let entry = CacheEntry(response: stored, storedAt: now, initialAge: age, lifetime: lifetime, control: control, varying: varying)
        // Kept if it can answer a later call: fresh, revalidatable, or within a stale window
        // (RFC 5861: `max-age=0, stale-if-error=60` without a validator is still served on errors).
        guard lifetime > age || !entry.validators.isEmpty || !entry.isExpired(at: now) else { return nil }
        return entry
    }

    /// The entry after a 304 to its revalidation: the 304's fields replace the stored ones of the
    /// same name (RFC 9111 §4.3.4), and its freshness starts again.
    func revalidated(by notModified: HTTPResponse, ttl: CacheTTL, defaultTTL: Int, now: Date) -> CacheEntry {
        var response = self.response
        for field in notModified.headers where field.name.lowercased() != "content-length" {
            response.headers.replaceOrAdd(name: field.name, value: field.value)
        }
        var entry = self
        entry.response = response
        entry.control = CacheControl(response.headers)
        entry.storedAt = now
        entry.initialAge = 0
        if let maxAge = entry.control.maxAge {
            entry.lifetime = maxAge
        } else if let ttlSeconds = ttl.seconds(defaultTTL: defaultTTL, storedAt: now), response.headers["Expires"] == nil {
            entry.lifetime = ttlSeconds
        }
        return entry
    }
}

extension CacheEntry {
    /// What a freed storage slot holds (nothing: an empty response).
    static let placeholder = CacheEntry(
        response: HTTPResponse(status: 0), storedAt: Date(timeIntervalSince1970: 0), initialAge: 0, lifetime: 0,
        control: CacheControl(HTTPHeaders()), varying: [:])
}
