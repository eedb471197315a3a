extension HTTPHeaders: CustomStringConvertible, CustomDebugStringConvertible {
    /// The fields in order, credentials redacted by the default ``Redaction``:
    /// `[Accept: application/json, Authorization: <redacted>]`.
    public var description: String {
        "[" + map(\.description).joined(separator: ", ") + "]"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// One field per line, `Name: value`, credentials redacted (a message's head).
    var lines: String {
        map(\.description).joined(separator: "\n")
    }
}

extension HTTPHeaders.Field: CustomStringConvertible {
    /// `Name: value`, the value replaced by `<redacted>` when the default ``Redaction`` holds
    /// the name secret.
    public var description: String {
        "\(name): \(Redaction.standard.value(ofHeader: name, value))"
    }
}
