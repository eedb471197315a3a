import Foundation

/// Media types Courier chooses for bodies whose caller named none: a file's by its extension
/// (as Alamofire and browsers do), and the parameters of a `Content-Type` (its `charset`).
/// Internal.
enum MediaType {
    /// What a body of bytes is sent as when nothing says more.
    static let octetStream = "application/octet-stream"

    /// The media type usual for files ending in `.pathExtension` (compared ignoring case), else
    /// `application/octet-stream`.
    static func guess(forPathExtension pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "txt", "text", "log": "text/plain"
        case "csv": "text/csv"
        case "html", "htm": "text/html"
        case "css": "text/css"
        case "js", "mjs": "text/javascript"
        case "md": "text/markdown"
        case "json": "application/json"
        case "xml": "application/xml"
        case "pdf": "application/pdf"
        case "zip": "application/zip"
        case "gz", "tgz": "application/gzip"
        case "tar": "application/x-tar"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "heic": "image/heic"
        case "svg": "image/svg+xml"
        case "mp3": "audio/mpeg"
        case "m4a": "audio/mp4"
        case "wav": "audio/wav"
        case "mp4", "m4v": "video/mp4"
        case "mov": "video/quicktime"
        case "webm": "video/webm"
        default: octetStream
        }
    }

    /// The value of parameter `name` (lower-case) of a media type such as
    /// `text/plain; charset="ISO-8859-1"`, unquoted; `nil` when absent.
    static func parameter(_ name: String, of mediaType: String) -> String? {
        for parameter in mediaType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2,
                  pair[0].trimmingCharacters(in: .whitespaces).lowercased() == name
            else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\", with: "")
            }
            return value
        }
        return nil
    }

    /// The text encoding a `charset` label names (WHATWG's labels of the encodings Foundation
    /// decodes), or `nil` for one it does not know.
    static func encoding(forCharset label: String) -> String.Encoding? {
        switch label.lowercased() {
        case "utf-8", "utf8", "unicode-1-1-utf-8": .utf8
        case "us-ascii", "ascii": .ascii
        case "iso-8859-1", "iso8859-1", "latin1", "l1", "iso_8859-1", "cp819", "ibm819": .isoLatin1
        case "iso-8859-2", "iso8859-2", "latin2", "l2", "iso_8859-2": .isoLatin2
        case "windows-1252", "cp1252", "x-cp1252": .windowsCP1252
        case "windows-1250", "cp1250", "x-cp1250": .windowsCP1250
        case "windows-1251", "cp1251", "x-cp1251": .windowsCP1251
        case "windows-1253", "cp1253", "x-cp1253": .windowsCP1253
        case "windows-1254", "cp1254", "x-cp1254": .windowsCP1254
        case "utf-16", "utf16": .utf16
        case "utf-16le": .utf16LittleEndian
        case "utf-16be": .utf16BigEndian
        case "utf-32", "utf32": .utf32
        case "utf-32le": .utf32LittleEndian
        case "utf-32be": .utf32BigEndian
        case "shift_jis", "shift-jis", "sjis", "ms_kanji", "csshiftjis": .shiftJIS
        case "euc-jp", "x-euc-jp": .japaneseEUC
        case "iso-2022-jp", "csiso2022jp": .iso2022JP
        case "macintosh", "mac", "x-mac-roman": .macOSRoman
        default: nil
        }
    }
}
