import Foundation
import Testing

@testable import Courier

@Suite struct MultipartFormTests {
    /// A temporary file of `size` bytes (a repeating pattern), removed by the caller.
    static func temporaryFile(size: Int, named name: String = "part.bin") throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-multipart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: url)
        return url
    }

    @Test("the exact bytes: delimiters, Content-Disposition, Content-Type, CRLF after each part, the closing delimiter")
    func theExactBytes() throws {
        var form = MultipartForm(boundary: "XyZ")
        form.append(name: "title", value: "Holiday")
        form.append(name: "note", data: Data("x".utf8), contentType: "text/plain")
        form.append(name: "photo", data: Data([0, 1, 2]), filename: "a.png", contentType: "image/png")
        form.append(name: "blob", data: Data("b".utf8), filename: "b")
        var expected = Data()
        expected.append(Data("--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHoliday\r\n".utf8))
        expected.append(Data("--XyZ\r\nContent-Disposition: form-data; name=\"note\"\r\nContent-Type: text/plain\r\n\r\nx\r\n".utf8))
        expected.append(Data("--XyZ\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n".utf8))
        expected.append(Data([0, 1, 2]))
        expected.append(Data("\r\n--XyZ\r\nContent-Disposition: form-data; name=\"blob\"; filename=\"b\"\r\nContent-Type: application/octet-stream\r\n\r\nb\r\n".utf8))
        expected.append(Data("--XyZ--\r\n".utf8))

        #expect(form.contentType == "multipart/form-data; boundary=XyZ")
        #expect(form.fitsInMemory)
        #expect(try form.encodedData() == expected)
        let stream = try form.makeBodyStream()
        #expect(stream.length == expected.count)
        #expect(try HTTPBodyStreamTests.readAll(stream, maxLength: 5).0 == expected)
    }

    @Test("names and filenames: \" CR LF escaped as %22 %0D %0A, non-ASCII as UTF-8; newlines in names and text values sent as CRLF")
    func escaping() throws {
        var form = MultipartForm(boundary: "b")
        form.append(name: "a\nb\"c", value: "one\ntwo\rthree\r\nfour")
        form.append(name: "naïve", data: Data(), filename: "résumé \"final\"\r\n.pdf", contentType: "application/pdf")
        let text = String(decoding: try form.encodedData(), as: UTF8.self)
        #expect(text.contains("name=\"a%0D%0Ab%22c\"\r\n\r\none\r\ntwo\r\nthree\r\nfour\r\n"))
        #expect(text.contains("name=\"naïve\"; filename=\"résumé %22final%22%0D%0A.pdf\"\r\n"))
        #expect(MultipartForm.normalizingNewlines("\r\r\n\n") == "\r\n\r\n\r\n")
        #expect(MultipartForm.normalizingNewlines("a\r") == "a\r\n")
    }

    @Test("a random boundary per form: courier- and 32 letters and digits; a boundary that is no token is quoted")
    func randomBoundary() {
        let first = MultipartForm(), second = MultipartForm()
        #expect(first.boundary != second.boundary)
        #expect(first.boundary.hasPrefix("courier-"))
        #expect(first.boundary.count == 40)
        #expect(first.boundary.dropFirst(8).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        #expect(first.contentType == "multipart/form-data; boundary=\(first.boundary)")
        #expect(MultipartForm(boundary: "a b:c").contentType == "multipart/form-data; boundary=\"a b:c\"")
    }

    @Test("a file from disk streams: read in chunks while sent, its size counted in the length, its type guessed")
    func aFileStreams() throws {
        let url = try Self.temporaryFile(size: 200_000, named: "scan.pdf")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        var fromDisk = MultipartForm(boundary: "B")
        fromDisk.append(name: "note", value: "hi")
        fromDisk.append(name: "scan", fileAt: url)
        var inMemory = MultipartForm(boundary: "B")
        inMemory.append(name: "note", value: "hi")
        inMemory.append(name: "scan", data: try Data(contentsOf: url), filename: "scan.pdf", contentType: "application/pdf")

        #expect(!fromDisk.fitsInMemory)
        #expect(inMemory.fitsInMemory)   // 200 kB in memory: sent as bytes
        let stream = try fromDisk.makeBodyStream()
        let expected = try inMemory.encodedData()
        #expect(stream.length == expected.count)
        let (body, reads) = try HTTPBodyStreamTests.readAll(stream, maxLength: 16 * 1024)
        #expect(body == expected)
        #expect(reads > 200_000 / (16 * 1024))
    }

    @Test("refused when the body is built: a missing file, a bad boundary, a content type with a line break")
    func refusals() throws {
        var missing = MultipartForm()
        missing.append(name: "f", fileAt: URL(fileURLWithPath: "/nonexistent/courier/file.bin"))
        #expect { try missing.makeBodyStream() } throws: { error in
            guard case .invalidRequest(let message) = error as? NetworkError else { return false }
            return message.contains("file.bin")
        }
        for boundary in ["", String(repeating: "a", count: 71), "ends with space ", "bad\"quote"] {
            var form = MultipartForm(boundary: boundary)
            form.append(name: "a", value: "b")
            #expect(throws: NetworkError.self) { try form.encodedData() }
        }
        var injected = MultipartForm()
        injected.append(name: "a", data: Data(), filename: "a", contentType: "text/plain\r\nX-Evil: 1")
        #expect(throws: NetworkError.self) { try injected.makeBodyStream() }
    }
}
