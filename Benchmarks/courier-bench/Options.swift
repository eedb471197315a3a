import Courier
import Foundation

struct Options {
    var quick = false
    var jsonPath: String?
    var url: URL?

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--quick": options.quick = true
            case "--json":
                guard let path = iterator.next() else { fail("--json needs a path") }
                options.jsonPath = path
            case "--url":
                guard let text = iterator.next(), let url = URL(string: text), url.host != nil,
                      ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                    fail("--url needs an absolute http(s) URL")
                }
                options.url = url
            case "--help", "-h":
                print("usage: courier-bench [--quick] [--json PATH] [--url URL]")
                exit(0)
            default: fail("unknown argument \(argument) (try --help)")
            }
        }
        return options
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("courier-bench: \(message)\n".utf8))
    exit(2)
}
