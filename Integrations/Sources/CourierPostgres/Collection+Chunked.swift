// The one helper the statements need to split a large insert.
extension Collection {
    /// The collection in consecutive slices of at most `size` elements.
    func chunked(_ size: Int) -> [SubSequence] {
        var chunks: [SubSequence] = []
        var start = startIndex
        while start != endIndex {
            let end = index(start, offsetBy: size, limitedBy: endIndex) ?? endIndex
            chunks.append(self[start..<end])
            start = end
        }
        return chunks
    }
}
