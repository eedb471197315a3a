import Foundation

/// Removes secrets from what gets logged: credential headers, token-like query parameters and
/// JSON body fields. On by default in the client's logging
/// (``APIClient/Configuration/Logging/redaction``).
///
/// A name is secret if it is in the exact set or contains one of the fragments (both compared
/// lowercased): apps invent credential headers (`X-Refresh-Token`, `X-Goog-Api-Key`) faster than
/// a list of names can follow. A fragment hides a little more than needed (a rate-limit header
/// counting `tokens`); that errs on the safe side.
public struct Redaction: Sendable, Equatable {
    /// Header names whose values are replaced (case-insensitive).
    public var headers: Set<String>
    /// A header whose name contains one of these is replaced too (case-insensitive).
    public var headerFragments: Set<String>
    /// Query parameter and JSON field names whose values are replaced (case-insensitive).
    public var parameters: Set<String>
    /// A query parameter or JSON field whose name contains one of these is replaced too
    /// (case-insensitive).
    public var parameterFragments: Set<String>
    /// What replaces a secret.
    public static let placeholder = "<redacted>"

    /// The default exact header names: Authorization, Proxy-Authorization, Cookie, Set-Cookie,
    /// X-API-Key, X-Auth-Token.
    public static let defaultHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token",
    ]
    /// The default header fragments: any header naming a token, secret, API key, password,
    /// authorization, cookie or signature.
    public static let defaultHeaderFragments: Set<String> = [
        "token", "secret", "api-key", "apikey", "api_key", "password", "authorization", "cookie", "signature",
    ]
    /// The default exact parameter names: OAuth's `token`, `access_token`, `refresh_token`,
    /// `id_token`, `code`, `client_secret` (also in camel case, as token endpoints write them:
    /// `accessToken`), `password`, API keys (`api_key`, `apikey`, `key`), signed URLs' `sig` and
    /// `signature`, session and auth tokens, and `authorization` echoed in a body.
    public static let defaultParameters: Set<String> = [
        "token", "access_token", "refresh_token", "code", "password", "id_token", "client_secret",
        "accesstoken", "refreshtoken", "idtoken", "clientsecret",
        "api_key", "apikey", "api-key", "key", "sig", "signature", "authorization",
        "session_token", "sessiontoken", "auth_token", "authtoken", "x-amz-security-token",
    ]
    /// The default parameter fragments: `secret`, `password`, `signature` (`client_secret`,
    /// `new_password`, `X-Amz-Signature`). Not `token` or `key`, which too many ordinary fields
    /// contain (`max_tokens`, `sort_key`).
    public static let defaultParameterFragments: Set<String> = ["secret", "password", "signature"]

    /// Creates a redaction; each set defaults to the matching `default…` set above. Passing
    /// one set replaces only that set: a custom `headers` keeps the default fragments, so pass
    /// `headerFragments: []` for exactly the names given.
    public init(
        headers: Set<String> = Redaction.defaultHeaders,
        headerFragments: Set<String> = Redaction.defaultHeaderFragments,
        parameters: Set<String> = Redaction.defaultParameters,
        parameterFragments: Set<String> = Redaction.defaultParameterFragments
    ) {
        self.headers = Set(headers.map { $0.lowercased() })
        self.headerFragments = Set(headerFragments.map { $0.lowercased() }.filter { !$0.isEmpty })
        self.parameters = Set(parameters.map { $0.lowercased() })
        self.parameterFragments = Set(parameterFragments.map { $0.lowercased() }.filter { !$0.isEmpty })
    }

    /// Nothing is redacted. For local debugging only.
    public static let off = Redaction(headers: [], headerFragments: [], parameters: [], parameterFragments: [])

    /// Whether a header named `name` is secret.
    public func isSecret(header name: String) -> Bool {
        let name = name.lowercased()
        return headers.contains(name) || headerFragments.contains { name.contains($0) }
    }

    /// Whether a query parameter or JSON field named `name` is secret.
    public func isSecret(parameter name: String) -> Bool {
        let name = name.lowercased()
        return parameters.contains(name) || parameterFragments.contains { name.contains($0) }
    }

    /// Whether anything would be redacted from parameters and fields.
    private var redactsParameters: Bool { !parameters.isEmpty || !parameterFragments.isEmpty }

    /// The header's value, or the placeholder if the header is secret. A `Location` URL (an
    /// OAuth redirect may carry `?code=`) has its secret query values replaced.
    public func value(ofHeader name: String, _ value: String) -> String {
        if isSecret(header: name) { return Self.placeholder }
        if name.lowercased() == "location", let url = URL(string: value) { return self.url(url) }
        return value
    }

    /// The URL as text with secret query values replaced, and without user info or fragment
    /// (either can carry credentials).
    public func url(_ url: URL) -> String {
        guard redactsParameters || !headers.isEmpty || !headerFragments.isEmpty else { return url.absoluteString }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "<unprintable URL>" }
        if components.user != nil || components.password != nil {
            components.user = nil
            components.password = nil
        }
        components.fragment = nil
        guard redactsParameters, let items = components.percentEncodedQueryItems, !items.isEmpty else {
            return components.string ?? "<unprintable URL>"
        }
        components.percentEncodedQueryItems = items.map { item in
            let name = item.name.removingPercentEncoding ?? item.name
            return isSecret(parameter: name) ? URLQueryItem(name: item.name, value: "%3Credacted%3E") : item
        }
        return components.string ?? "<unprintable URL>"
    }

    /// The body as text, at most `limit` bytes, with secret JSON fields replaced. Other bodies
    /// are shown only if they are UTF-8 text in which no secret name stands before a `=` or `:`
    /// (`password=`, `"password": `, `Token: `).
    public func body(_ data: Data, limit: Int) -> String {
        guard !data.isEmpty else { return "" }
        guard redactsParameters else { return Self.truncate(data, limit: limit) }
        if let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) {
            let cleaned = redactJSON(json)
            if let text = try? JSONSerialization.data(withJSONObject: cleaned, options: [.fragmentsAllowed, .sortedKeys]) {
                return Self.truncate(text, limit: limit)
            }
        }
        guard String(data: data, encoding: .utf8) != nil else { return "<\(data.count) bytes, binary>" }
        // A secret shows up as a field name before `=` or `:` (`password=`, `"password": `,
        // `Token: `); "barcode" or "tokenizer" alone do not hide the body.
        let mentionsSecret = Self.fieldNames(in: data).contains { isSecret(parameter: $0) }
        if mentionsSecret { return "<\(data.count) bytes, redacted>" }
        return Self.truncate(data, limit: limit)
    }

    private func redactJSON(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, field) in object {
                result[key] = isSecret(parameter: key) ? Self.placeholder : redactJSON(field)
            }
            return result
        }
        if let array = value as? [Any] { return array.map(redactJSON) }
        return value
    }

    /// The names in `text` that stand before a `=` or `:` (spaces and a closing quote between
    /// them allowed), percent-decoded: what a form, a header-like line or a JSON-like text
    /// uses as a field's name.
    static func fieldNames(in text: Data) -> [String] {
        var names: [String] = []
        let bytes = [UInt8](text)
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "=") || byte == UInt8(ascii: ":") {
            var end = index
            while end > 0, bytes[end - 1] == UInt8(ascii: " ") { end -= 1 }
            if end > 0, bytes[end - 1] == UInt8(ascii: "\"") || bytes[end - 1] == UInt8(ascii: "'") { end -= 1 }
            var start = end
            while start > 0, isNameByte(bytes[start - 1]) { start -= 1 }
            guard start < end else { continue }
            let name = String(decoding: bytes[start..<end], as: UTF8.self)
            names.append(name.removingPercentEncoding ?? name)
        }
        return names
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "%"):
            true
        default:
            false
        }
    }

    private static func truncate(_ data: Data, limit: Int) -> String {
        let prefix = data.prefix(limit)
        guard let text = String(data: prefix, encoding: .utf8) ?? String(data: prefix.dropLast(3), encoding: .utf8) else {
            return "<\(data.count) bytes, binary>"
        }
        return data.count > limit ? text + "… (\(data.count) bytes)" : text
    }
}
