import Foundation
import Testing

@testable import Courier

@Suite struct CacheEntryTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let request = HTTPRequest(url: URL(string: "https://api.example.com/v1/items")!, headers: ["Accept-Language": "es"])

    private func entry(_ headers: HTTPHeaders, ttl: CacheTTL = .defaultTTL, status: Int = 200) -> CacheEntry? {
        CacheEntry.make(response: HTTPResponse(status: status, headers: headers, body: Data("x".utf8)), requestHeaders: request.headers, ttl: ttl, defaultTTL: 300, now: now)
    }

    @Test("Cache-Control directives are read, whatever their case and spacing")
    func directives() {
        let control = CacheControl(["Cache-Control": "No-Cache, max-age=60 ,Must-Revalidate, stale-while-revalidate=30, stale-if-error=\"600\""])
        #expect(control.noCache && control.mustRevalidate && !control.noStore)
        #expect(control.maxAge == 60 && control.staleWhileRevalidate == 30 && control.staleIfError == 600)
        #expect(CacheControl(["Cache-Control": "max-age=abc"]).maxAge == nil)
    }

    @Test("max-age beats the TTL; Expires counts from Date; Age is already spent")
    func lifetimes() throws {
        #expect(try #require(entry(["Cache-Control": "max-age=60"], ttl: .custom(seconds: 5))).lifetime == 60)
        #expect(try #require(entry([:])).lifetime == 300)
        #expect(try #require(entry([:], ttl: .custom(seconds: 7))).lifetime == 7)
        let expiring = try #require(entry(["Date": "Tue, 15 Jan 2030 10:00:00 GMT", "Expires": "Tue, 15 Jan 2030 10:02:00 GMT"]))
        #expect(expiring.lifetime == 120)
        let aged = try #require(entry(["Cache-Control": "max-age=60", "Age": "50"]))
        #expect(aged.isFresh(at: now.addingTimeInterval(9)))
        #expect(!aged.isFresh(at: now.addingTimeInterval(10)))
    }

    @Test("no-store, Vary: *, a noCache TTL and statuses other than 200/203 are not stored")
    func notStored() {
        #expect(entry(["Cache-Control": "private, no-store"]) == nil)
        #expect(entry(["Vary": "*"]) == nil)
        #expect(entry([:], ttl: .noCache) == nil)
        #expect(entry([:], status: 201) == nil)
        #expect(entry(["Cache-Control": "max-age=0"]) == nil)   // nothing to reuse: no lifetime, no validator
        #expect(entry(["Cache-Control": "max-age=0", "ETag": "\"v1\""]) != nil)
    }

    @Test("max-age=0 without a validator is kept within a stale-if-error or stale-while-revalidate window, and expires after it")
    func staleWindowsWithoutValidators() throws {
        let ifError = try #require(entry(["Cache-Control": "max-age=0, stale-if-error=60"]))
        #expect(!ifError.isFresh(at: now) && ifError.servableOnError(at: now.addingTimeInterval(59)))
        #expect(!ifError.isExpired(at: now.addingTimeInterval(59)))
        #expect(ifError.isExpired(at: now.addingTimeInterval(60)))
        let whileRevalidating = try #require(entry(["Cache-Control": "max-age=0, stale-while-revalidate=30"]))
        #expect(whileRevalidating.servableWhileRevalidating(at: now.addingTimeInterval(29)))
        #expect(!whileRevalidating.isExpired(at: now.addingTimeInterval(29)))
        #expect(whileRevalidating.isExpired(at: now.addingTimeInterval(30)))
        // No window usable: must-revalidate forbids stale answers; an Age past the window spent it.
        #expect(entry(["Cache-Control": "max-age=0, must-revalidate, stale-if-error=60, stale-while-revalidate=60"]) == nil)
        #expect(entry(["Cache-Control": "max-age=0, stale-if-error=60", "Age": "60"]) == nil)
        #expect(entry(["Cache-Control": "max-age=0, stale-if-error=60", "Age": "59"]) != nil)
    }

    @Test("no-cache stores but never serves unrevalidated; stale windows follow their directives")
    func staleness() throws {
        let noCache = try #require(entry(["Cache-Control": "no-cache", "ETag": "\"a\""]))
        #expect(!noCache.isFresh(at: now))
        let lenient = try #require(entry(["Cache-Control": "max-age=10, stale-while-revalidate=20, stale-if-error=100"]))
        #expect(lenient.servableWhileRevalidating(at: now.addingTimeInterval(25)))
        #expect(!lenient.servableWhileRevalidating(at: now.addingTimeInterval(30)))
        #expect(lenient.servableOnError(at: now.addingTimeInterval(105)))
        let strict = try #require(entry(["Cache-Control": "max-age=10, must-revalidate, stale-if-error=100"]))
        #expect(!strict.servableOnError(at: now.addingTimeInterval(20)))
    }

    @Test("an entry matches only requests with the header values it varies on")
    func vary() throws {
        let varying = try #require(entry(["Vary": "Accept-Language"]))
        #expect(varying.matches(request.headers))
        var other = request
        other.headers.replaceOrAdd(name: "Accept-Language", value: "en")
        #expect(!varying.matches(other.headers))
    }

    @Test("a 304 refreshes the stored fields and the freshness, keeping the body")
    func revalidation() throws {
        let stored = try #require(entry(["Cache-Control": "max-age=10", "ETag": "\"v1\""]))
        #expect(stored.validators.map(\.name) == ["If-None-Match"])
        let later = now.addingTimeInterval(100)
        let refreshed = stored.revalidated(by: HTTPResponse(status: 304, headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""]), ttl: .defaultTTL, defaultTTL: 300, now: later)
        #expect(refreshed.isFresh(at: later.addingTimeInterval(59)))
        #expect(refreshed.response.body == Data("x".utf8))
        #expect(refreshed.response.status == 200)
    }

    @Test("untilMidnight lasts until the next midnight of its time zone")
    func untilMidnight() throws {
        let utc = try #require(TimeZone(identifier: "UTC"))
        let tenPM = Date(timeIntervalSince1970: 1_800_000_000 - 1_800_000_000.truncatingRemainder(dividingBy: 86_400) + 22 * 3600)
        #expect(CacheTTL.untilMidnight(utc).seconds(defaultTTL: 300, storedAt: tenPM) == 2 * 3600)
    }
}
