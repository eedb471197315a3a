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
    /// The default header fragments: any header naming a token, secret, API key, password
    /// (`passwd`, `passphrase`), private key, authorization, cookie or signature.
    public static let defaultHeaderFragments: Set<String> = [
        "token", "secret", "api-key", "apikey", "api_key", "password", "passwd", "passphrase",
        "private-key", "privatekey", "authorization", "cookie", "signature",
    ]
    /// The default exact parameter names: OAuth's `token`, `access_token`, `refresh_token`,
    /// `id_token`, `code`, `client_secret` (also in camel case, as token endpoints write them:
    /// `accessToken`), OAuth's `client_assertion`, passwords (`password`, `pwd`, `passwd`,
    /// `passphrase`), one-time codes (`otp`), `credentials`, private keys, API keys (`api_key`,
    /// `apikey`, `x-api-key`, `key`), signed URLs' `sig` and `signature`, session ids, session
    /// and auth tokens, and `authorization` echoed in a body.
    public static let defaultParameters: Set<String> = [
        "token", "access_token", "refresh_token", "code", "password", "id_token", "client_secret",
        "accesstoken", "refreshtoken", "idtoken", "clientsecret", "client_assertion", "clientassertion",
        "pwd", "passwd", "passphrase", "otp", "credential", "credentials",
        "private_key", "privatekey", "private-key",
        "api_key", "apikey", "api-key", "x-api-key", "x_api_key", "key", "sig", "signature", "authorization",
        "sessionid", "session_id", "session-id",
        "session_token", "sessiontoken", "auth_token", "authtoken", "x-amz-security-token",
    ]
    /// The default parameter fragments: `secret`, `password`, `passwd`, `passphrase`,
    /// `signature`, `private_key`, `privatekey` (`client_secret`, `new_password`,
    /// `X-Amz-Signature`, `ssh_private_key`). Not `token` or `key`, which too many ordinary
    /// fields contain (`max_tokens`, `sort_key`).
    public static let defaultParameterFragments: Set<String> = [
        "secret", "password", "passwd", "passphrase", "signature", "private_key", "privatekey",
    ]

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

    /// The defaults, built once: what descriptions and ``HTTPRequest/curlCommand`` use.
    static let standard = Redaction()

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

    /// The body as text, at most `limit` bytes, with its secrets replaced:
    ///
    /// - JSON (whatever `contentType` says) is shown as it was sent, byte for byte, with only
    ///   the values of secret members replaced (no re-ordering, re-spacing or re-escaping);
    /// - a form (`contentType` `application/x-www-form-urlencoded`) is shown with only its
    ///   secret fields' values replaced;
    /// - other UTF-8 text is shown only if no secret name stands in it before a `=` or `:`
    ///   (`password=`, `"password": `, `Token: `), else as `<N bytes, redacted>`; bytes that
    ///   are not UTF-8 as `<N bytes, binary>`.
    public func body(_ data: Data, contentType: String? = nil, limit: Int) -> String {
        guard !data.isEmpty else { return "" }
        guard let text = shown(data, contentType: contentType) else { return "<\(data.count) bytes, redacted>" }
        // Checked whole: a cut text may end inside a character, a binary one must not pass for it.
        guard String(data: text, encoding: .utf8) != nil else { return "<\(data.count) bytes, binary>" }
        return Self.truncate(text, limit: limit)
    }

    /// The whole body with its secrets replaced as ``body(_:contentType:limit:)`` describes, or
    /// `nil` when it mentions a secret it cannot locate (then nothing of it may be shown). Not
    /// checked for UTF-8.
    func shown(_ data: Data, contentType: String?) -> Data? {
        guard redactsParameters else { return data }
        if let json = JSONSecretScanner.redacting(data, with: self) { return json }
        if let contentType, Self.isForm(contentType) { return redactingForm(data) }
        guard String(data: data, encoding: .utf8) != nil else { return data }
        // A secret shows up as a field name before `=` or `:` (`password=`, `"password": `,
        // `Token: `); "barcode" or "tokenizer" alone do not hide the body.
        let mentionsSecret = Self.fieldNames(in: data).contains { isSecret(parameter: $0) }
        return mentionsSecret ? nil : data
    }

    /// Whether `contentType` is `application/x-www-form-urlencoded` (ignoring case and
    /// parameters).
    private static func isForm(_ contentType: String) -> Bool {
        let essence = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return essence.trimmingCharacters(in: .whitespaces).lowercased() == "application/x-www-form-urlencoded"
    }

    /// A form's fields as they were sent, the values of secret ones replaced.
    private func redactingForm(_ data: Data) -> Data {
        let fields = data.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).map { field -> Data in
            guard let equals = field.firstIndex(of: UInt8(ascii: "=")) else { return Data(field) }
            let encodedName = String(decoding: field[..<equals], as: UTF8.self).replacingOccurrences(of: "+", with: " ")
            let name = encodedName.removingPercentEncoding ?? encodedName
            return isSecret(parameter: name) ? Data(field[...equals]) + Data(Self.placeholder.utf8) : Data(field)
        }
        return Data(fields.joined(separator: [UInt8(ascii: "&")]))
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

    /// UTF-8 `text` cut at `limit` bytes (on a character boundary), saying its whole size when
    /// it was cut (the redacted text's, which does not tell a secret's length).
    private static func truncate(_ text: Data, limit: Int) -> String {
        guard text.count > limit else { return String(decoding: text, as: UTF8.self) }
        let prefix = text.prefix(max(0, limit))
        // A character cut at the limit is dropped whole (UTF-8 characters are at most 4 bytes).
        let shown = (0...3).lazy.compactMap { String(data: prefix.dropLast($0), encoding: .utf8) }.first ?? ""
        return shown + "… (\(text.count) bytes)"
    }
}
