import CourierTesting
import Foundation
import Testing

@testable import Courier

// MARK: - Helpers

func makeTestRequest(
    _ urlString: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: Data? = nil
) -> HTTPRequest {
    HTTPRequest(method: method, url: URL(string: urlString)!, headers: headers, body: body)
}

func testContext(
    id: UInt64 = 7, attempt: Int = 1, requiresAuth: Bool = true, logger: (any NetworkLogger)? = nil
) -> RequestContext {
    RequestContext(id: RequestID(id), attempt: attempt, requiresAuth: requiresAuth, logger: logger)
}

/// The request an interception went on with, or nil (recording an issue) if it answered.
func proceeded(_ interception: RequestInterception, sourceLocation: SourceLocation = #_sourceLocation) -> HTTPRequest? {
    switch interception {
    case .proceed(let request):
        return request
    case .respond(let response):
        Issue.record("expected .proceed, got .respond(\(response.status))", sourceLocation: sourceLocation)
        return nil
    }
}

/// The error `body` threw, or nil if it returned.
func thrown<T>(_ body: () async throws(NetworkError) -> T) async -> NetworkError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}

extension CapturingLogger {
    /// Everything captured, as one string: levels, messages, metadata keys and values.
    var allText: String {
        lines.map { line in
            ([String(describing: line.level), line.message]
                + line.metadata.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] })
                .joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
