import Foundation
import Testing

@testable import Courier

/// A fresh directory for one test, removed by `cleanUp`.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

@Suite struct FileTokenPersistenceTests {
    let tokens = Tokens(accessToken: "a1", refreshToken: "r1", expiresAt: Date(timeIntervalSince1970: 2_000_000_000))

    @Test("tokens round-trip through a file that only its owner can read")
    func roundTripWithMode0600() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileTokenPersistence(url: directory.appendingPathComponent("tokens.json"))
        #expect(try store.load() == nil)
        try store.save(tokens)
        #expect(try store.load() == tokens)
        let mode = try FileManager.default.attributesOfItem(atPath: store.url.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try store.remove()
        #expect(try store.load() == nil)
        try store.remove()   // removing nothing is fine
    }

    @Test("a crash between writing the new file and renaming it leaves the old file intact")
    func interruptedWriteKeepsTheOldFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileTokenPersistence(url: directory.appendingPathComponent("tokens.json"))
        try store.save(tokens)
        // What a crash before the rename leaves: a half-written temporary file beside the old one.
        try Data(#"{"accessToken":"a2","refr"#.utf8).write(to: directory.appendingPathComponent("tokens.json.tmp-1-2"))
        #expect(try store.load() == tokens)
        var next = tokens
        next.accessToken = "a2"
        try store.save(next)
        #expect(try store.load() == next)
    }

    @Test("a corrupt file is a clear error that does not quote the file")
    func corruptFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("tokens.json")
        try Data("not json: secret-access".utf8).write(to: url)
        #expect {
            _ = try FileTokenPersistence(url: url).load()
        } throws: { error in
            "\(error)".contains("corrupt") && !"\(error)".contains("secret")
        }
    }
}
