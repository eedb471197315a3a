import Testing

@testable import Courier

@Suite struct StandardErrorLoggerTests {
    @Test("a line has the level, the message and the metadata sorted by key")
    func aLineHasTheLevelTheMessageAndTheMetadataSortedByKey() {
        let line = StandardErrorLogger.line(.warning, "response", metadata: ["status": "503", "attempt": "2", "request": "#7"])
        #expect(line == "[courier] WARNING response attempt=2 request=#7 status=503\n")
    }

    @Test("a line without metadata ends after the message")
    func aLineWithoutMetadataEndsAfterTheMessage() {
        #expect(StandardErrorLogger.line(.info, "started", metadata: [:]) == "[courier] INFO started\n")
    }

    @Test("CR and LF in a value cannot forge a second line")
    func crAndLFInAValueCannotForgeASecondLine() {
        let line = StandardErrorLogger.line(.error, "failed", metadata: ["reason": "x\r\n[courier] INFO forged"])
        #expect(line == "[courier] ERROR failed reason=x\\r\\n[courier] INFO forged\n")
        #expect(line.filter { $0 == "\n" }.count == 1)
    }

    @Test("lines below the minimum level are not enabled")
    func linesBelowTheMinimumLevelAreNotEnabled() {
        let logger = StandardErrorLogger(minimumLevel: .warning)
        #expect(LogLevel.allCases.filter(logger.isEnabled) == [.warning, .error])
        #expect(StandardErrorLogger().minimumLevel == .info)
    }
}
