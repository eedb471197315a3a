import Foundation
import Testing

@testable import Courier

// MARK: - Helpers

/// Runs `body` and returns the `NetworkError` it threw, or nil if it returned.
func thrownError<T>(_ body: () throws(NetworkError) -> T) -> NetworkError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// The message of the `.invalidRequest` thrown by `body`; records an issue if it threw
/// anything else or nothing.
func invalidRequestMessage<T>(
    _ body: () throws(NetworkError) -> T, sourceLocation: SourceLocation = #_sourceLocation
) -> String? {
    switch thrownError(body) {
    case .invalidRequest(let message)?:
        return message
    case let other:
        Issue.record("expected .invalidRequest, got \(String(describing: other))", sourceLocation: sourceLocation)
        return nil
    }
}

/// The message of the `.invalidURL` thrown by `body`; records an issue if it threw anything
/// else or nothing.
func invalidURLMessage<T>(
    _ body: () throws(NetworkError) -> T, sourceLocation: SourceLocation = #_sourceLocation
) -> String? {
    switch thrownError(body) {
    case .invalidURL(let message)?:
        return message
    case let other:
        Issue.record("expected .invalidURL, got \(String(describing: other))", sourceLocation: sourceLocation)
        return nil
    }
}

func testURL(_ string: String) -> URL {
    guard let url = URL(string: string) else { fatalError("bad test URL \(string)") }
    return url
}

/// The path of `url` as URLComponents decodes it, and its segments decoded one by one (split on
/// the encoded path, so an encoded `%2F` would show up as a `/` inside a segment).
func decodedPath(_ url: URL) -> (path: String, segments: [String])? {
    guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
    let segments = components.percentEncodedPath
        .split(separator: "/", omittingEmptySubsequences: false)
        .dropFirst() // before the leading "/"
        .map { $0.removingPercentEncoding ?? "<undecodable>" }
    return (components.path, Array(segments))
}
