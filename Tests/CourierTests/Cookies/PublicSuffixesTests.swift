import Testing

@testable import Courier

/// The public-suffix rule: single labels, the built-in multi-label list, and the configuration's additions.
@Suite struct PublicSuffixesTests {
    let suffixes = PublicSuffixes(additional: [".Apps.Example.NET"])

    @Test("single labels, common second levels and shared hosting are public; registrable names are not")
    func whatIsPublic() {
        for domain in ["com", "uk", "localhost", "co.uk", "com.au", "co.jp", "github.io", "apps.example.net"] {
            #expect(suffixes.contains(domain), "\(domain)")
        }
        for domain in ["example.com", "example.co.uk", "bbc.co.uk", "user.github.io", "example.net"] {
            #expect(!suffixes.contains(domain), "\(domain)")
        }
    }

    @Test("a host's site is its public suffix and one label more; an IP address or a suffix is its own")
    func sites() {
        #expect(suffixes.site(of: "api.example.com") == "example.com")
        #expect(suffixes.site(of: "a.b.example.co.uk") == "example.co.uk")
        #expect(suffixes.site(of: "example.co.uk") == "example.co.uk")
        #expect(suffixes.site(of: "alice.github.io") == "alice.github.io")
        #expect(suffixes.site(of: "x.alice.github.io") == "alice.github.io")
        #expect(suffixes.site(of: "localhost") == "localhost")
        #expect(suffixes.site(of: "co.uk") == "co.uk")
        #expect(suffixes.site(of: "127.0.0.1") == "127.0.0.1")
        #expect(suffixes.site(of: "::1") == "::1")
    }
}
