import Foundation

extension HTTPRequest: CustomStringConvertible, CustomDebugStringConvertible {
    /// The method, the URL and the body's size, credentials redacted by the default
    /// ``Redaction``: `POST https://api.example.com/v1/orders?token=%3Credacted%3E (14-byte body)`.
    public var description: String {
        "\(method) \(Redaction.standard.url(url))\(bodySummary.map { " (\($0))" } ?? "")"
    }

    /// The request as an HTTP message: the method and URL, one header field per line, and the
    /// body as text (its first 1000 bytes) after a blank line; credentials and secret body
    /// fields redacted by the default ``Redaction``. See ``curlCommand`` for a command to send
    /// it again.
    public var debugDescription: String {
        var text = "\(method) \(Redaction.standard.url(url))"
        if !headers.isEmpty { text += "\n" + headers.lines }
        if let body, !body.isEmpty {
            text += "\n\n" + Redaction.standard.body(body, contentType: headers["Content-Type"], limit: 1000)
        } else if let bodyStream {
            text += "\n\n<streamed body\(bodyStream.length.map { ", \($0) bytes" } ?? "")>"
        }
        return text
    }

    /// What the body is, in a few words; nil when there is none.
    private var bodySummary: String? {
        if let body, !body.isEmpty { return "\(body.count)-byte body" }
        if let bodyStream { return bodyStream.length.map { "streamed \($0)-byte body" } ?? "streamed body" }
        return nil
    }
}
