import Foundation

/// The body the embedded in-memory server answers with (52 bytes, as nginx's config does).
let sampleBody = Data(#"{"id":42,"name":"Ada Lovelace","email":"ada@ex.org"}"#.utf8)
