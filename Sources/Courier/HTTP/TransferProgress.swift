/// How far a body's transfer has come: bytes done, and the total when it is known.
///
/// ```swift
/// let options = RequestOptions(uploadProgress: { progress in
///     print("sent \(progress.completedBytes) of \(progress.totalBytes.map(String.init) ?? "?")")
/// })
/// ```
public struct TransferProgress: Sendable, Equatable {
    /// The bytes transferred so far (for a resumed download, the bytes already on disk included).
    public let completedBytes: Int64
    /// The body's whole size, when known (`Content-Length`, a `Content-Range`'s complete length,
    /// a request body's declared length); `nil` for a body of unknown length.
    public let totalBytes: Int64?

    /// Progress of `completedBytes` out of `totalBytes`.
    public init(completedBytes: Int64, totalBytes: Int64?) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// The fraction done, 0 to 1, when the total is known (1 for an empty body).
    public var fractionCompleted: Double? {
        guard let totalBytes else { return nil }
        guard totalBytes > 0 else { return 1 }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }
}
