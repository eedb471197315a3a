extension SyncProgress: CustomStringConvertible {
    /// The counts, in a line: `sync: 3 of 10 done, 1 failed, replaying item 7`, or
    /// `sync finished: …` at the end.
    public var description: String {
        var text = (isFinished ? "sync finished: " : "sync: ") + "\(done) of \(total) done"
        if failed > 0 { text += ", \(failed) failed" }
        if let currentItem { text += ", replaying item \(currentItem)" }
        return text
    }
}
