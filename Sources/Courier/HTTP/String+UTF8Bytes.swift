extension String {
    /// Calls `body` with the string's UTF-8 bytes, read in place. Unlike `withUTF8`, which is
    /// mutating, it needs no `var` copy of the string to call it on. A string without contiguous
    /// UTF-8 (bridged from Objective-C, on Apple platforms) is copied first.
    func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        return try Array(utf8).withUnsafeBufferPointer(body)
    }
}
