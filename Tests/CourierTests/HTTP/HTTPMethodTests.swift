import Foundation
import Testing

@testable import Courier

@Suite struct HTTPMethodTests {

    @Test("raw values are ASCII-uppercased; literals and statics agree")
    func uppercasing() {
        #expect(HTTPMethod(rawValue: "get") == .get)
        #expect(HTTPMethod(rawValue: "pAtCh").rawValue == "PATCH")
        let purge: HTTPMethod = "purge"
        #expect(purge.rawValue == "PURGE")
        #expect(purge.description == "PURGE")
        #expect(HTTPMethod(rawValue: "straße").rawValue == "STRAßE") // only ASCII letters change
        #expect(
            [HTTPMethod.get, .head, .post, .put, .patch, .delete, .options].map(\.rawValue)
                == ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
        )
        #expect(Set<HTTPMethod>(["get", "GET", .get]).count == 1)
    }

    @Test(
        "idempotency follows RFC 9110 §9.2.2",
        arguments: [
            ("GET", true), ("head", true), ("OPTIONS", true), ("TRACE", true), ("PUT", true),
            ("DELETE", true), ("POST", false), ("PATCH", false), ("CONNECT", false), ("PURGE", false),
        ]
    )
    func idempotency(method: String, idempotent: Bool) {
        #expect(HTTPMethod(rawValue: method).isIdempotent == idempotent)
    }
}
