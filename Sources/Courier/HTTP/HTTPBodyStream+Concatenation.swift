import Foundation

extension HTTPBodyStream {
    /// The bodies of `streams` one after another (a multipart form's parts and the bytes
    /// between them): each stream's reader is made when the one before it has ended, so at most
    /// one file is open at a time. The length is the sum of theirs when every one is known,
    /// else unknown (sent chunked). It can be sent again only if every one of them can. A part
    /// an async sequence produces (``chunks(_:length:reopenable:)``) keeps its nature: the
    /// transfer pauses while it is behind.
    public static func concatenating(_ streams: [HTTPBodyStream]) -> HTTPBodyStream {
        var total: Int? = 0
        for stream in streams {
            total = total.flatMap { sum in stream.length.map { sum + $0 } }
        }
        if streams.contains(where: { $0.makeProducer != nil }) {
            return HTTPBodyStream(length: total, isReopenable: streams.allSatisfy(\.isReopenable)) { ConcatenatedBody(streams) }
        }
        return HTTPBodyStream(length: total, isReopenable: streams.allSatisfy(\.isReopenable)) {
            var index = 0
            var reader: Reader?
            return { maxLength in
                while index < streams.count {
                    let current: Reader
                    if let reader {
                        current = reader
                    } else {
                        current = try streams[index].makeReader()
                        reader = current
                    }
                    let data = try current(maxLength)
                    if !data.isEmpty { return data }
                    reader = nil
                    index += 1
                }
                return Data()
            }
        }
    }
}
