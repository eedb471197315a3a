/// The domains under which anyone may register a name (`com`, `co.uk`, `github.io`): a cookie
/// whose `Domain` attribute is one of them would reach every site under it, so it is refused,
/// and the per-domain limit counts cookies by the site just below them.
///
/// The rule: every single-label domain is a public suffix; so is every name in
/// ``builtIn`` (the common second-level registries of country domains, and shared hosting
/// domains whose subdomains belong to different owners) and in
/// ``CookieConfiguration/additionalPublicSuffixes``. This is a small subset of the Public Suffix
/// List (publicsuffix.org), which Courier does not ship; a domain it lacks is treated as
/// registrable.
struct PublicSuffixes: Sendable {
    private let names: Set<String>

    init(additional: Set<String> = []) {
        names = Self.builtIn.union(additional.map { Self.canonical($0) })
    }

    /// Whether `domain` (lowercased, no leading dot) is a public suffix.
    func contains(_ domain: String) -> Bool {
        !domain.contains(".") || names.contains(domain)
    }

    /// The registrable domain of `host` (a public suffix and one label more, e.g. `example.co.uk`
    /// for `api.example.co.uk`); `host` itself when it is an IP address or a public suffix.
    func site(of host: String) -> String {
        if CookieURL.isIPAddress(host) { return host }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        var index = 0
        while index < labels.count {
            let suffix = labels[index...].joined(separator: ".")
            if contains(suffix) {
                return index == 0 ? host : labels[(index - 1)...].joined(separator: ".")
            }
            index += 1
        }
        return host
    }

    /// Lowercased, without a leading dot.
    static func canonical(_ domain: String) -> String {
        let lowered = domain.lowercased()
        return lowered.hasPrefix(".") ? String(lowered.dropFirst()) : lowered
    }

    /// The built-in multi-label public suffixes.
    static let builtIn: Set<String> = [
        // Country registries' second levels.
        "co.uk", "org.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk", "sch.uk", "ac.uk", "gov.uk", "nhs.uk", "police.uk",
        "com.au", "net.au", "org.au", "edu.au", "gov.au", "asn.au", "id.au",
        "co.nz", "net.nz", "org.nz", "govt.nz", "ac.nz", "school.nz", "geek.nz", "gen.nz",
        "co.jp", "ne.jp", "or.jp", "ac.jp", "ad.jp", "ed.jp", "go.jp", "gr.jp", "lg.jp",
        "co.kr", "ne.kr", "or.kr", "re.kr", "pe.kr", "go.kr", "ac.kr",
        "com.cn", "net.cn", "org.cn", "gov.cn", "edu.cn", "ac.cn",
        "com.hk", "net.hk", "org.hk", "edu.hk", "gov.hk",
        "com.tw", "net.tw", "org.tw", "edu.tw", "gov.tw",
        "com.sg", "net.sg", "org.sg", "edu.sg", "gov.sg",
        "com.my", "net.my", "org.my", "edu.my", "gov.my",
        "co.in", "net.in", "org.in", "firm.in", "gen.in", "ind.in", "ac.in", "edu.in", "res.in", "gov.in",
        "com.br", "net.br", "org.br", "gov.br", "edu.br",
        "com.ar", "net.ar", "org.ar", "gob.ar",
        "com.mx", "net.mx", "org.mx", "gob.mx", "edu.mx",
        "co.za", "net.za", "org.za", "gov.za", "ac.za",
        "co.il", "org.il", "net.il", "ac.il", "gov.il",
        "com.tr", "net.tr", "org.tr", "gov.tr", "edu.tr",
        "com.ua", "net.ua", "org.ua", "gov.ua",
        "co.th", "in.th", "or.th", "ac.th", "go.th",
        "co.id", "or.id", "ac.id", "go.id", "web.id",
        "com.ph", "net.ph", "org.ph", "com.vn", "net.vn", "org.vn",
        "com.pk", "com.eg", "com.sa", "com.ng", "com.es", "org.es", "com.pl", "net.pl", "org.pl",
        // Shared hosting: each subdomain has its own owner.
        "github.io", "githubusercontent.com", "gitlab.io", "herokuapp.com", "appspot.com", "blogspot.com",
        "cloudfront.net", "azurewebsites.net", "netlify.app", "vercel.app", "pages.dev", "workers.dev",
        "web.app", "firebaseapp.com", "s3.amazonaws.com", "elasticbeanstalk.com", "fly.dev", "onrender.com",
        "ngrok.io", "ngrok-free.app", "glitch.me",
    ]
}
