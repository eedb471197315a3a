// What the README's examples assume the reader's app has: `.ci/check-readme` compiles each
// ```swift block of README.md (as the main file) beside these declarations.
import Courier
import Foundation

actor AppSession { var accessToken: String { "token" } }
let session = AppSession()
let base = URL(string: "https://api.example.com")!
struct Order: Codable, Sendable { var total = 1 }
let order = Order()
let orderID = UUID().uuidString
struct Note: Codable, Sendable { var text = "" }
let note = Note()
struct Menu: Decodable, Sendable {}
struct Feed: Decodable, Sendable {}
struct Credentials: Encodable, Sendable { var user = "", password = "" }
let credentials = Credentials()
struct LoginAnswer: Decodable, Sendable { let accessToken: String; let refreshToken: String }
let queueFileURL = URL(fileURLWithPath: "/tmp/queue.sqlite")
let tokensFileURL = URL(fileURLWithPath: "/tmp/tokens.json")
@Sendable func merge(_ local: Data, _ server: Data) throws -> Data { local }
func showPending(_ id: Int64) {}
func showSaved() {}
func showLoginScreen() {}
actor Tenants { var current: String { "acme" } }
let tenants = Tenants()
