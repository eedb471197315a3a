import Courier
import Foundation

struct User: Decodable, Sendable {
    let id: Int
    let name: String
    let email: String
}
