import Foundation
import Testing

@testable import Courier

/// RFC 6265 §5.1.1: the cookie-date algorithm, on the forms servers send and on dates it must refuse.
@Suite struct CookieDateTests {
    /// 2015-10-21 07:28:00 UTC.
    let expected = Date(timeIntervalSince1970: 1_445_412_480)

    @Test("IMF-fixdate, RFC 850, asctime and the sloppy forms in the wild read as one date", arguments: [
        "Wed, 21 Oct 2015 07:28:00 GMT",
        "Wednesday, 21-Oct-15 07:28:00 GMT",
        "Wed Oct 21 07:28:00 2015",
        "Wed, 21-Oct-2015 07:28:00 GMT",
        "21 october 2015 7:28:0",
        "Wed, 21 Oct 2015 07:28:00 +0000",
        "2015 Oct 21 07:28:00",
    ])
    func readsTheFormsInTheWild(text: String) {
        #expect(CookieDate.parse(text) == expected)
    }

    @Test("two-digit years: 70–99 are 19xx, 00–69 are 20xx")
    func twoDigitYears() {
        #expect(CookieDate.parse("Thu, 01-Jan-70 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(CookieDate.parse("Sat, 01-Jan-00 00:00:00 GMT") == Date(timeIntervalSince1970: 946_684_800))
    }

    @Test("leap days are read, impossible dates and missing parts are not", arguments: [
        ("Tue, 29 Feb 2000 00:00:00 GMT", true),
        ("Sat, 29 Feb 2100 00:00:00 GMT", false),
        ("31 Feb 2015 00:00:00", false),
        ("21 Oct 2015", false),
        ("21 Oct 07:28:00", false),
        ("Oct 2015 07:28:00", false),
        ("21 Oct 1600 07:28:00", false),
        ("21 Oct 2015 24:00:00", false),
        ("21 Oct 2015 07:60:00", false),
        ("", false),
        ("not a date at all", false),
        ("0", false),
    ])
    func refusesWhatIsNotADate(text: String, valid: Bool) {
        #expect((CookieDate.parse(text) != nil) == valid)
    }
}
