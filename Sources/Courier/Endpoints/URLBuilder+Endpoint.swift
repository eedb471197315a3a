import Foundation

extension URLBuilder.Base {
    /// The URL text of `endpoint` under this base: its segments, the version's first when there
    /// is one, and its query.
    func text(for endpoint: UntypedEndpoint) throws(NetworkError) -> String {
        if let version = endpoint.version {
            return try text(segments: [version.rawValue] + endpoint.segments, trailingSlash: endpoint.hasTrailingSlash, query: endpoint.query)
        }
        return try text(segments: endpoint.segments, trailingSlash: endpoint.hasTrailingSlash, query: endpoint.query)
    }

    /// The URL of `endpoint` under this base: ``text(for:)``, parsed.
    func url(for endpoint: UntypedEndpoint) throws(NetworkError) -> URL {
        try URLBuilder.parse(text(for: endpoint))
    }
}
