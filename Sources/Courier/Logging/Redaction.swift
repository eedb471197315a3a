import Foundation

/// Removes secrets from what gets logged: credential headers, token-like query parameters and
/// JSON body fields. On by default in ``LoggingInterceptor``.
public struct Redaction: Sendable, Equatable {
    /// Header names whose values are replaced (case-insensitive).
    public var headers: Set<String>
    /// Query parameter and JSON field names whose values are replaced (case-insensitive).
    public var parameters: Set<String>
    /// What replaces a secret.
    public static let placeholder = "<redacted>"

    /// Creates a redaction; the defaults cover Authorization, Proxy-Authorization, Cookie,
    /// Set-Cookie, X-API-Key, X-Auth-Token, and `token`, `access_token`, `refresh_token`,
    /// `id_token`, `client_secret` (each also in camel case, as token endpoints write them:
    /// `accessToken`), `code`, `password`.
    public init(
        headers: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token"],
        parameters: Set<String> = [
            "token", "access_token", "refresh_token", "code", "password", "id_token", "client_secret",
            "accesstoken", "refreshtoken", "idtoken", "clientsecret",
        ]
    ) {
        self.headers = Set(headers.map { $0.lowercased() })
        self.parameters = Set(parameters.map { $0.lowercased() })
    }

    /// Nothing is redacted. For local debugging only.
    public static let off = Redaction(headers: [], parameters: [])

    /// The header's value, or the placeholder if the header is secret. A `Location` URL (an
    /// OAuth redirect may carry `?code=`) has its secret query values replaced.
    public func value(ofHeader name: String, _ value: String) -> String {
        let name = name.lowercased()
        if headers.contains(name) { return Self.placeholder }
        if name == "location", let url = URL(string: value) { return self.url(url) }
        return value
    }

    /// The URL as text with secret query values replaced, and without user info or fragment
    /// (either can carry credentials).
    public func url(_ url: URL) -> String {
        guard !parameters.isEmpty || !headers.isEmpty else { return url.absoluteString }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "<unprintable URL>" }
        if components.user != nil || components.password != nil {
            components.user = nil
            components.password = nil
        }
        components.fragment = nil
        guard !parameters.isEmpty, let items = components.percentEncodedQueryItems, !items.isEmpty else {
            return components.string ?? "<unprintable URL>"
        }
        components.percentEncodedQueryItems = items.map { item in
            let name = item.name.removingPercentEncoding ?? item.name
            return parameters.contains(name.lowercased()) ? URLQueryItem(name: item.name, value: "%3Credacted%3E") : item
        }
        return components.string ?? "<unprintable URL>"
    }

    /// The body as text, at most `limit` bytes, with secret JSON fields replaced. Other bodies
    /// are shown only if they are UTF-8 text with no secret parameter as a field
    /// (`name=`, `"name"`, `name:`).
    public func body(_ data: Data, limit: Int) -> String {
        guard !data.isEmpty else { return "" }
        guard !parameters.isEmpty else { return Self.truncate(data, limit: limit) }
        if let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) {
            let cleaned = redactJSON(json)
            if let text = try? JSONSerialization.data(withJSONObject: cleaned, options: [.fragmentsAllowed, .sortedKeys]) {
                return Self.truncate(text, limit: limit)
            }
        }
        guard String(data: data, encoding: .utf8) != nil else { return "<\(data.count) bytes, binary>" }
        let lowered = String(decoding: data, as: UTF8.self).lowercased()
        // A secret shows up as a form field (`password=`), a quoted key (`"password"`) or a
        // `password:` line; "barcode" or "tokenizer" alone do not hide the body.
        let mentionsSecret = parameters.contains { name in
            lowered.contains(name + "=") || lowered.contains("\"" + name + "\"") || lowered.contains(name + ":")
        }
        if mentionsSecret { return "<\(data.count) bytes, redacted>" }
        return Self.truncate(data, limit: limit)
    }

    private func redactJSON(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, field) in object {
                result[key] = parameters.contains(key.lowercased()) ? Self.placeholder : redactJSON(field)
            }
            return result
        }
        if let array = value as? [Any] { return array.map(redactJSON) }
        return value
    }

    private static func truncate(_ data: Data, limit: Int) -> String {
        let prefix = data.prefix(limit)
        guard let text = String(data: prefix, encoding: .utf8) ?? String(data: prefix.dropLast(3), encoding: .utf8) else {
            return "<\(data.count) bytes, binary>"
        }
        return data.count > limit ? text + "… (\(data.count) bytes)" : text
    }
}
