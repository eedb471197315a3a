import Foundation
import Testing

/// The programs integration tests run (`python3`, `openssl`, `nginx`, the virtual environment
/// of httpbin and Strawberry): found on `PATH`, and what happens when one cannot be had.
///
/// A test whose tool is missing is skipped with a one-line reason (Swift Testing reports it
/// as cancelled, never as passed), so that `swift test` passes on a fresh clone. CI, which
/// installs every tool, sets `COURIER_REQUIRE_TEST_TOOLS=1`: there the same test fails instead,
/// so nothing is skipped silently.
enum TestTool {
    /// Whether a missing tool fails the test instead of skipping it (`COURIER_REQUIRE_TEST_TOOLS=1`).
    static var isRequired: Bool {
        ProcessInfo.processInfo.environment["COURIER_REQUIRE_TEST_TOOLS"] == "1"
    }

    /// Skips the running test, saying `reason`; fails it instead when tools are required.
    static func unavailable(_ reason: String) throws -> Never {
        if isRequired { throw TestToolError(reason: reason) }
        try Test.cancel(Comment(rawValue: "skipped: \(reason)"))
    }

    /// The executable `name` on `PATH` (or `name` itself when it is a path), or nil.
    static func find(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").lazy
            .map { "\($0)/\(name)" }
            .first(where: FileManager.default.isExecutableFile(atPath:))
    }

    /// The executable `name` on `PATH`; skips the test (see ``unavailable(_:)``) when there is none.
    static func require(_ name: String, install: String) throws -> String {
        guard let found = find(name) else {
            try unavailable("\(name) \(name.contains("/") ? "is not an executable" : "is not on PATH") (\(install))")
        }
        return found
    }

    /// `python3` on `PATH`, which the scripted servers run on.
    static func python3() throws -> String {
        try require("python3", install: "Debian: apt-get install python3")
    }
}

/// A tool a test needs is missing while `COURIER_REQUIRE_TEST_TOOLS=1` (CI) requires it.
struct TestToolError: Error, CustomStringConvertible {
    let reason: String

    var description: String { "required test tool missing (COURIER_REQUIRE_TEST_TOOLS=1): \(reason)" }
}
