import Foundation
import Testing

@testable import Courier

@Suite struct URLEncodedFormTests {
    @Test("the WHATWG serializer: letters, digits and *-._ as they are, space as +, every other byte %XX of its UTF-8")
    func theWHATWGSerializer() {
        #expect(URLEncodedForm.escape("azAZ09*-._") == "azAZ09*-._")
        #expect(URLEncodedForm.escape("a b") == "a+b")
        #expect(URLEncodedForm.escape("+&=%/?#~!'()") == "%2B%26%3D%25%2F%3F%23%7E%21%27%28%29")
        #expect(URLEncodedForm.escape("café ✓ 😀") == "caf%C3%A9+%E2%9C%93+%F0%9F%98%80")
        #expect(URLEncodedForm.escape("line\r\nnext") == "line%0D%0Anext")
        #expect(URLEncodedForm.escape("") == "")
    }

    @Test("fields keep their order, repeated names and empty values")
    func fieldsKeepTheirOrder() {
        var form: URLEncodedForm = ["z": "1", "a": "two words", "z": ""]
        form.append("q", "a&b=c")
        #expect(form.encoded == "z=1&a=two+words&z=&q=a%26b%3Dc")
        #expect(URLEncodedForm().encoded == "")
        #expect(URLEncodedForm([.init(name: "é", value: "è")]).encoded == "%C3%A9=%C3%A8")
    }
}
