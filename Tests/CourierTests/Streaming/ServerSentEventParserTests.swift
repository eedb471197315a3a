import Foundation
import Testing

@testable import Courier

/// The event stream interpretation of the HTML standard ("9.2.6 Interpreting an event
/// stream"), its examples included, fed whole, byte by byte and split at every offset.
@Suite struct ServerSentEventParserTests {
    /// The events `text` completes, fed as one chunk, then the stream's end.
    func events(_ text: String, maxEventBytes: Int = ServerSentEventParser.defaultMaxEventBytes) throws -> [ServerSentEvent] {
        try events(Data(text.utf8), maxEventBytes: maxEventBytes)
    }

    func events(_ bytes: Data, maxEventBytes: Int = ServerSentEventParser.defaultMaxEventBytes) throws -> [ServerSentEvent] {
        var parser = ServerSentEventParser(maxEventBytes: maxEventBytes)
        let events = try parser.parse(bytes)
        parser.endOfStream()
        return events
    }

    /// The events of `bytes` fed in the given pieces.
    func events(_ bytes: Data, splitAt offsets: [Int]) throws -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        var start = 0
        for end in offsets + [bytes.count] {
            events += try parser.parse(bytes.subdata(in: start..<end))
            start = end
        }
        return events
    }

    @Test("the standard's first example: data lines joined by LF, a block without a blank line after it discarded")
    func dataLines() throws {
        #expect(try events("data: YHOO\ndata: +2\ndata: 10\n\n") == [ServerSentEvent(data: "YHOO\n+2\n10")])
        #expect(try events("data: first\n\ndata: second") == [ServerSentEvent(data: "first")])
    }

    @Test("the standard's comment and id example: IDs persist, an empty id clears it, one space is dropped")
    func commentsAndIDs() throws {
        let stream = ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"
        #expect(try events(stream) == [
            ServerSentEvent(data: "first event", id: "1"),
            ServerSentEvent(data: "second event", id: ""),
            ServerSentEvent(data: " third event", id: ""),
        ])
        #expect(try events("id: 7\ndata: a\n\ndata: b\n\n").map(\.id) == ["7", "7"])
    }

    @Test("the standard's empty data example: `data` alone is an empty value, two make a newline")
    func emptyData() throws {
        #expect(try events("data\n\ndata\ndata\n\ndata:") == [ServerSentEvent(data: ""), ServerSentEvent(data: "\n")])
        #expect(try events("data:test\n\ndata: test\n\n") == [ServerSentEvent(data: "test"), ServerSentEvent(data: "test")])
    }

    @Test("event names the type, `message` by default; it is forgotten after each blank line")
    func eventTypes() throws {
        let stream = "event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\ndata: 113411\n\nevent: lost\n\ndata: x\n\n"
        #expect(try events(stream).map(\.type) == ["add", "remove", "message", "message"])
        #expect(try events("event\ndata: x\n\n").map(\.type) == ["message"])
    }

    @Test("no data, no event: a blank line alone or after other fields dispatches nothing, but sets the last event ID")
    func noDataNoEvent() throws {
        var parser = ServerSentEventParser()
        #expect(try parser.parse(Data("\n\n\nid: 9\nevent: x\n\n".utf8)).isEmpty)
        #expect(parser.lastEventID == "9")
        #expect(try parser.parse(Data("data: y\n\n".utf8)) == [ServerSentEvent(data: "y", id: "9")])
    }

    @Test("an id with NUL is ignored; unknown fields and comments are ignored")
    func ignoredFields() throws {
        #expect(try events("id: 1\n\nid: a\u{0}b\ndata: x\n\n") == [ServerSentEvent(data: "x", id: "1")])
        #expect(try events(": comment\nfoo: bar\nData: no\n:\ndata: yes\n\n") == [ServerSentEvent(data: "yes")])
    }

    @Test("retry sets the reconnection time only when its value is all ASCII digits")
    func retry() throws {
        var parser = ServerSentEventParser()
        #expect(try parser.parse(Data("retry: 1500\n\n".utf8)).isEmpty)
        #expect(parser.reconnectionTime == .milliseconds(1500))
        for invalid in ["retry: 10a", "retry: -5", "retry:", "retry", "retry: 1 0", "retry:  10", "retry: +10", "retry: 1.5",
                        "retry: 99999999999999999999999"] {
            _ = try parser.parse(Data("\(invalid)\n\n".utf8))
            #expect(parser.reconnectionTime == .milliseconds(1500), "\(invalid) was taken")
        }
        #expect(try parser.parse(Data("retry: 0\ndata: x\n\n".utf8)) == [ServerSentEvent(data: "x", retry: .zero)])
        #expect(parser.reconnectionTime == .zero)
        #expect(try parser.parse(Data("data: y\n\n".utf8)) == [ServerSentEvent(data: "y")])
    }

    @Test("lines end with LF, CR or CRLF, mixed; CR CR is two line ends")
    func lineEnds() throws {
        let expected = [ServerSentEvent(data: "a\nb", id: "1"), ServerSentEvent(type: "t", data: "c", id: "1")]
        for end in ["\n", "\r", "\r\n"] {
            #expect(try events(["id: 1", "data: a", "data: b", "", "event: t", "data: c", "", ""].joined(separator: end)) == expected)
        }
        #expect(try events("id: 1\rdata: a\r\ndata: b\n\r\nevent: t\ndata: c\r\r") == expected)
        #expect(try events("data: a\r\r\ndata: b\n\n") == [ServerSentEvent(data: "a"), ServerSentEvent(data: "b")])
    }

    @Test("one byte order mark at the start is skipped, a second is part of the field name; invalid UTF-8 becomes U+FFFD")
    func byteOrderMarkAndDecoding() throws {
        #expect(try events("\u{FEFF}data: x\n\n") == [ServerSentEvent(data: "x")])
        #expect(try events("\u{FEFF}\u{FEFF}data: x\n\ndata: y\n\n") == [ServerSentEvent(data: "y")])
        #expect(try events("data: \u{FEFF}x\n\n") == [ServerSentEvent(data: "\u{FEFF}x")])
        let invalid = Data("data: a".utf8) + Data([0xFF, 0xC3]) + Data("b\n\n".utf8)
        #expect(try events(invalid) == [ServerSentEvent(data: "a\u{FFFD}\u{FFFD}b")])
        #expect(try events("event: café\ndata: ✓ 😀\n\n") == [ServerSentEvent(type: "café", data: "✓ 😀")])
    }

    @Test("the same events whatever the chunks: split at every offset, and byte by byte")
    func everySplit() throws {
        let text = "\u{FEFF}: keep-alive\r\nevent: café\r\ndata: ✓ 😀\r\nid: 1\r\n\r\ndata: a\rdata:b\r\rretry: 25\nid\ndata\n\ndata: end\r\n\r\n"
        let bytes = Data(text.utf8)
        let whole = try events(bytes)
        #expect(whole == [
            ServerSentEvent(type: "café", data: "✓ 😀", id: "1"),
            ServerSentEvent(data: "a\nb", id: "1"),
            ServerSentEvent(data: "", id: "", retry: .milliseconds(25)),
            ServerSentEvent(data: "end", id: ""),
        ])
        for offset in 0...bytes.count {
            #expect(try events(bytes, splitAt: [offset]) == whole, "split at \(offset)")
            for second in offset...bytes.count where second - offset < 4 {
                #expect(try events(bytes, splitAt: [offset, second]) == whole, "split at \(offset) and \(second)")
            }
        }
        #expect(try events(bytes, splitAt: Array(1..<bytes.count)) == whole)
    }

    @Test("the end of a stream discards the incomplete line and event; the last event ID and retry carry on, a new BOM is skipped")
    func endOfStream() throws {
        var parser = ServerSentEventParser(lastEventID: "resume")
        #expect(try parser.parse(Data("retry: 50\ndata: one\n\nid: 2\nevent: half\ndata: cut\nda".utf8)) ==
            [ServerSentEvent(data: "one", id: "resume", retry: .milliseconds(50))])
        parser.endOfStream()
        #expect(parser.lastEventID == "resume")
        #expect(try parser.parse(Data("\u{FEFF}ta: no\ndata: two\n\n".utf8)) == [ServerSentEvent(data: "two", id: "resume")])
        #expect(parser.reconnectionTime == .milliseconds(50))
        // A CR last in a stream does not swallow the next stream's first LF.
        _ = try parser.parse(Data("data: x\r".utf8))
        parser.endOfStream()
        #expect(try parser.parse(Data("\ndata: y\n\n".utf8)) == [ServerSentEvent(data: "y", id: "resume")])
    }

    @Test("a line or an event's data past maxEventBytes throws responseTooLarge, however it is split; up to it is fine")
    func boundedMemory() throws {
        let limit = 64
        let fits = "data: " + String(repeating: "a", count: limit - 6) + "\n\n"
        #expect(try events(fits, maxEventBytes: limit).first?.data.count == limit - 6)
        let longLine = "data: " + String(repeating: "a", count: limit) + "\n\n"
        let longComment = ":" + String(repeating: "c", count: limit) + "\n"
        let longEvent = String(repeating: "data: 0123456789\n", count: 7) + "\n"
        let unended = String(repeating: "x", count: limit + 1)
        for stream in [longLine, longComment, longEvent, unended] {
            #expect(throws: NetworkError.self) { try events(stream, maxEventBytes: limit) }
            var parser = ServerSentEventParser(maxEventBytes: limit)
            do {
                for byte in stream.utf8 { _ = try parser.parse(Data([byte])) }
                Issue.record("\(stream.prefix(12))… fed byte by byte did not throw")
            } catch {
                guard case .responseTooLarge(limit) = error else { Issue.record("got \(error)"); continue }
            }
        }
        // Many events, each within the limit, never add up.
        #expect(try events(String(repeating: "data: 0123456789\n\n", count: 100), maxEventBytes: limit).count == 100)
    }
}
