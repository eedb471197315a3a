import Foundation

extension HTTPResponse: CustomStringConvertible, CustomDebugStringConvertible {
    /// The status, the body's size, and the request's id when the pipeline answered it:
    /// `HTTP 404 (120-byte body, request #7)`.
    public var description: String {
        var details: [String] = []
        if streamedBody != nil {
            details.append("streamed body")
        } else if !body.isEmpty {
            details.append("\(body.count)-byte body")
        }
        if let metrics { details.append("request \(metrics.id)") }
        return "HTTP \(status)" + (details.isEmpty ? "" : " (" + details.joined(separator: ", ") + ")")
    }

    /// The response as an HTTP message: the status, one header field per line, and the body
    /// as text (its first 1000 bytes) after a blank line; cookies and other credentials, and
    /// secret body fields, redacted by the default ``Redaction``.
    public var debugDescription: String {
        var text = "HTTP \(status)"
        if !headers.isEmpty { text += "\n" + headers.lines }
        if !body.isEmpty {
            text += "\n\n" + Redaction.standard.body(body, contentType: headers["Content-Type"], limit: 1000)
        }
        return text
    }
}
