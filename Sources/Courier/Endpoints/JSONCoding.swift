import Foundation

/// JSON settings for request bodies and response decoding: key mapping (e.g. snake_case) and
/// date format.
public struct JSONCoding: Sendable {
    /// How property names map to JSON keys.
    public enum Keys: Sendable {
        /// Property names are the JSON keys.
        case asIs
        /// `userID` is written `user_id`, and read back from it.
        case snakeCase
    }
    /// How dates are written and read.
    public enum Dates: Sendable {
        /// ISO 8601 text, e.g. `2026-11-23T10:00:00Z`.
        case iso8601
        /// A number of seconds since 1970-01-01.
        case secondsSince1970
        /// A number of milliseconds since 1970-01-01.
        case millisecondsSince1970
        /// Foundation's own default (seconds since 2001-01-01).
        case foundationDefault
    }

    /// Key mapping. Default `asIs`.
    public var keys: Keys
    /// Date format. Default `iso8601`.
    public var dates: Dates

    /// Creates JSON settings; the defaults keep keys as they are and use ISO-8601 dates.
    public init(keys: Keys = .asIs, dates: Dates = .iso8601) {
        self.keys = keys
        self.dates = dates
    }

    /// An encoder with these settings. Keys are sorted, so the same value always encodes to the
    /// same bytes (stable bodies for signatures, caches and idempotent replays).
    public func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        if keys == .snakeCase { encoder.keyEncodingStrategy = .convertToSnakeCase }
        switch dates {
        case .iso8601: encoder.dateEncodingStrategy = .iso8601
        case .secondsSince1970: encoder.dateEncodingStrategy = .secondsSince1970
        case .millisecondsSince1970: encoder.dateEncodingStrategy = .millisecondsSince1970
        case .foundationDefault: break
        }
        return encoder
    }

    /// A decoder with these settings.
    public func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        if keys == .snakeCase { decoder.keyDecodingStrategy = .convertFromSnakeCase }
        switch dates {
        case .iso8601: decoder.dateDecodingStrategy = .iso8601
        case .secondsSince1970: decoder.dateDecodingStrategy = .secondsSince1970
        case .millisecondsSince1970: decoder.dateDecodingStrategy = .millisecondsSince1970
        case .foundationDefault: break
        }
        return decoder
    }
}
