import Foundation

extension HTTPRequest {
    /// The request as a `curl` command line, credentials redacted by the default
    /// ``Redaction`` (Alamofire's `cURLDescription()`): paste it into a shell to send the
    /// request again, once you have put the credentials back.
    ///
    /// ```text
    /// curl -X POST 'https://api.example.com/v1/orders' \
    ///   -H 'Content-Type: application/json' \
    ///   -H 'Authorization: <redacted>' \
    ///   --data-binary '{"quantity":2}'
    /// ```
    ///
    /// See ``curlCommand(redaction:)`` for what each part becomes.
    public var curlCommand: String { curlCommand(redaction: .standard) }

    /// The request as a `curl` command line, with its credentials as they are when
    /// `revealingCredentials` is true (for a terminal of your own, never a log), redacted by the
    /// default ``Redaction`` otherwise.
    public func curlCommand(revealingCredentials: Bool) -> String {
        curlCommand(redaction: revealingCredentials ? .off : .standard)
    }

    /// The request as a `curl` command line, what `redaction` holds secret redacted: every
    /// argument single-quoted for a POSIX shell (a `'` inside written `'\''`); the method and
    /// URL on the first line, then one header field or body per line.
    ///
    /// - The method as `-X` (none for a GET, `--head` for a HEAD); the URL, its secret query
    ///   values, user info and fragment redacted as in logs.
    /// - Every header field as `-H`, in order, secret values as `<redacted>`; an empty value as
    ///   `-H 'Name;'`, curl's spelling for it.
    /// - A text body as `--data-binary` (`--data-raw` if it starts with `@`), as sent but for
    ///   its secret JSON members or form fields; a body that is not UTF-8 text, that mentions a
    ///   secret which cannot be located in it, or that is streamed becomes a placeholder,
    ///   `--data-binary '@<…>'`, naming a file that does not exist: put the body there.
    /// - No `--compressed`: curl then sends the `Accept-Encoding` of the request only.
    public func curlCommand(redaction: Redaction) -> String {
        var command = "curl "
        switch method {
        case .get where body == nil && bodyStream == nil: break
        case .head: command += "--head "
        default:
            // A method of letters only (every usual one) needs no quotes.
            let plain = !method.rawValue.isEmpty && method.rawValue.utf8.allSatisfy { (0x41...0x5A).contains($0 & 0xDF) }
            command += "-X " + (plain ? method.rawValue : Self.shellQuoted(method.rawValue)) + " "
        }
        var arguments = [command + Self.shellQuoted(redaction.url(url))]
        for field in headers {
            let value = redaction.value(ofHeader: field.name, field.value)
            arguments.append("-H " + Self.shellQuoted(value.isEmpty ? "\(field.name);" : "\(field.name): \(value)"))
        }
        if let body {
            arguments.append(Self.curlBody(body, contentType: headers["Content-Type"], redaction))
        } else if let bodyStream {
            let placeholder = "@<streamed body\(bodyStream.length.map { ", \($0) bytes" } ?? "")>"
            arguments.append("--data-binary " + Self.shellQuoted(placeholder))
        }
        return arguments.joined(separator: " \\\n  ")
    }

    /// The body's argument: the body as text, or a placeholder file name.
    private static func curlBody(_ body: Data, contentType: String?, _ redaction: Redaction) -> String {
        guard let shown = redaction.shown(body, contentType: contentType) else {
            return "--data-binary " + shellQuoted("@<\(body.count)-byte body, redacted>")
        }
        // A NUL cannot be passed in an argument.
        guard !shown.contains(0), let text = String(data: shown, encoding: .utf8) else {
            return "--data-binary " + shellQuoted("@<\(body.count)-byte binary body>")
        }
        // `--data-binary` reads a file named by a leading `@`; `--data-raw` sends it as it is.
        return (text.hasPrefix("@") ? "--data-raw " : "--data-binary ") + shellQuoted(text)
    }

    /// `text` single-quoted for a POSIX shell: nothing inside single quotes is special but the
    /// quote itself, which closes the quoting, is written escaped, and reopens it.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
