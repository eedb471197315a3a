extension String {
    /// Calls `body` with the string's UTF-8 bytes, read in place. Unlike `withUTF8`, which is
    /// mutating, it needs no copy of the string to call it on (a retain and a release, for every
    /// URL, segment and header field the request path scans). A string without contiguous UTF-8
    /// (bridged from Objective-C, on Apple platforms) is copied first.
    func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        return try Array(utf8).withUnsafeBufferPointer(body)
    }

    /// A copy in storage of its own. Strings that share storage count references on
    /// it: a value every request copies (the session's `Authorization` value) would have its
    /// count changed by every request, from every core, each change taking the count's cache
    /// line from the core that changed it last. A copy made for the request is counted only by
    /// the request.
    func unsharedCopy() -> String {
        withUTF8Bytes { bytes in
            String(unsafeUninitializedCapacity: bytes.count) { buffer in
                _ = buffer.initialize(fromContentsOf: bytes)
                return bytes.count
            }
        }
    }
}
