/// One part of a multipart subscription's body (Apollo's protocol): `{}` is a heartbeat,
/// `{"payload": {data, errors, extensions}}` a result, `{"payload": null}` the end, and
/// `{"errors": […]}` (with a null payload or none) an error that ends the subscription.
struct GraphQLSubscriptionPart<Data: Decodable>: Decodable {
    /// A result's members.
    struct Payload: Decodable {
        let data: Data?
        let errors: [GraphQLError]?
        let extensions: [String: JSONValue]?
    }

    /// What the part is.
    enum Kind {
        case heartbeat
        case result(Payload)
        case end
        case failure([GraphQLError])
    }

    let kind: Kind

    private enum CodingKeys: String, CodingKey { case payload, errors }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Errors beside the payload (Apollo Router sends `{"payload": null, "errors": […]}` for a
        // fatal one) end the subscription with them, not quietly.
        if let errors = try container.decodeIfPresent([GraphQLError].self, forKey: .errors), !errors.isEmpty {
            kind = .failure(errors)
        } else if container.contains(.payload) {
            kind = try container.decodeNil(forKey: .payload) ? .end : .result(try container.decode(Payload.self, forKey: .payload))
        } else {
            kind = .heartbeat
        }
    }
}
