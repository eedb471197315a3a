import Foundation
import Testing

@testable import Courier

/// `request.curlCommand`: a command a POSIX shell reads back into the request's own method,
/// URL, headers and body, credentials redacted unless asked; run by `/usr/bin/curl`, it reaches
/// the scripted server as the request would.
@Suite struct HTTPRequestCurlTests {
    /// A body full of what a shell would act on, and a secret.
    private static let body = #"{"note":"it's $(echo pwned) `x` \"q\" \\ 'a'","password":"hunter2","n":1}"#

    private static func request(_ base: URL) -> HTTPRequest {
        HTTPRequest(
            method: .post, url: URL(string: "/v1/echo?note=it's&access_token=tok1", relativeTo: base)!.absoluteURL,
            headers: [
                "Authorization": "Bearer s3cr3t", "X-Quote": #"it's "q" $HOME `id`"#, "Content-Type": "application/json",
                "X-Empty": "", "Accept": "a", "accept": "b",
            ],
            body: Data(body.utf8))
    }

    /// The arguments a shell reads from `command`: `curl` is replaced by a function that prints
    /// them, NUL-separated, so nothing is sent.
    private func arguments(_ command: String) async throws -> [String] {
        let (status, output) = try await runShell("curl() { printf '%s\\0' \"$@\"; }\n" + command)
        #expect(status == 0)
        return output.split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("the shell reads back every argument as written, quotes, $ and backticks included; credentials revealed when asked")
    func shellReadsItBack() async throws {
        let request = Self.request(URL(string: "http://127.0.0.1:9")!)
        #expect(try await arguments(request.curlCommand(revealingCredentials: true)) == [
            "-X", "POST", "http://127.0.0.1:9/v1/echo?note=it's&access_token=tok1",
            "-H", "Authorization: Bearer s3cr3t", "-H", #"X-Quote: it's "q" $HOME `id`"#, "-H", "Content-Type: application/json",
            "-H", "X-Empty;", "-H", "Accept: a", "-H", "accept: b",
            "--data-binary", Self.body,
        ])
        #expect(try await arguments(request.curlCommand) == [
            "-X", "POST", "http://127.0.0.1:9/v1/echo?note=it's&access_token=%3Credacted%3E",
            "-H", "Authorization: <redacted>", "-H", #"X-Quote: it's "q" $HOME `id`"#, "-H", "Content-Type: application/json",
            "-H", "X-Empty;", "-H", "Accept: a", "-H", "accept: b",
            "--data-binary", #"{"note":"it's $(echo pwned) `x` \"q\" \\ 'a'","password":"<redacted>","n":1}"#,
        ])
    }

    @Test("rendered: method and URL first, then one argument a line, single-quoted ('\\'' for a quote), a plain method bare")
    func rendering() {
        let request = HTTPRequest(
            method: .put, url: URL(string: "https://api.example.com/it's")!, headers: ["X-Note": "o'k"], body: Data("a'b".utf8))
        #expect(request.curlCommand == #"""
            curl -X PUT 'https://api.example.com/it'\''s' \
              -H 'X-Note: o'\''k' \
              --data-binary 'a'\''b'
            """#)
        #expect(HTTPRequest(url: URL(string: "https://api.example.com/items")!).curlCommand == "curl 'https://api.example.com/items'")
        #expect(HTTPRequest(method: .head, url: URL(string: "https://a.example/")!).curlCommand == "curl --head 'https://a.example/'")
        #expect(HTTPRequest(method: "M'X", url: URL(string: "https://a.example/")!).curlCommand.hasPrefix(#"curl -X 'M'\''X'"#))
    }

    @Test("bodies that cannot be shown become placeholders; a body starting with @ is sent raw")
    func bodyPlaceholders() {
        let url = URL(string: "https://a.example/up")!
        let binary = HTTPRequest(method: .post, url: url, body: Data([0xFF, 0x00, 0x01]))
        #expect(binary.curlCommand.hasSuffix("--data-binary '@<3-byte binary body>'"))
        let secretText = HTTPRequest(method: .post, url: url, headers: ["Content-Type": "text/plain"], body: Data("password=x".utf8))
        #expect(secretText.curlCommand.hasSuffix("--data-binary '@<10-byte body, redacted>'"))
        #expect(secretText.curlCommand(revealingCredentials: true).hasSuffix("--data-binary 'password=x'"))
        var streamed = HTTPRequest(method: .post, url: url)
        streamed.bodyStream = HTTPBodyStream(length: 5, makeReader: { { _ in Data() } })
        #expect(streamed.curlCommand.hasSuffix("--data-binary '@<streamed body, 5 bytes>'"))
        let form = HTTPRequest(
            method: .post, url: url, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data("user=ada&password=x".utf8))
        #expect(form.curlCommand.hasSuffix("--data-binary 'user=ada&password=<redacted>'"))
        let at = HTTPRequest(method: .post, url: url, body: Data("@handle".utf8))
        #expect(at.curlCommand.hasSuffix("--data-raw '@handle'"))
    }

    @Test("run by /usr/bin/curl, the command reaches the scripted server with the request's method, headers and body",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "needs /usr/bin/curl"))
    func curlReachesTheServer() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/echo", [.json(200, "{}")])
            let request = Self.request(server.baseURL)
            for (command, revealed) in [(request.curlCommand(revealingCredentials: true), true), (request.curlCommand, false)] {
                let (status, _) = try await runShell(command + " --noproxy '*' -sS -o /dev/null --max-time 20")
                #expect(status == 0)
                let seen = try #require(try await server.requests(path: "/v1/echo").last)
                #expect(seen.method == "POST")
                #expect(seen.path == (revealed ? "/v1/echo?note=it's&access_token=tok1" : "/v1/echo?note=it's&access_token=%3Credacted%3E"))
                #expect(seen.header("Authorization") == (revealed ? "Bearer s3cr3t" : "<redacted>"))
                #expect(seen.header("X-Quote") == #"it's "q" $HOME `id`"#)
                #expect(seen.header("Content-Type") == "application/json")
                #expect(seen.header("X-Empty") == "")
                #expect(seen.headers.filter { $0[0].lowercased() == "accept" }.map { $0[1] } == ["a", "b"])
                #expect(seen.bodyText == (revealed ? Self.body : Self.body.replacingOccurrences(of: "hunter2", with: "<redacted>")))
            }
            #expect(try await server.requests(path: "/v1/echo").count == 2)
        }
    }
}
