/// Values a caller attaches to one call for the interceptors of its attempts, at most one per
/// type (as OkHttp's request tags): an integration's per-call state, such as the span a tracing
/// wrapper opened for the call, which the attempts run on a pipeline worker cannot find
/// otherwise (task-local values do not reach it).
///
/// Set them in ``RequestOptions/tags``; interceptors read them in ``RequestContext/tags``. They
/// are not part of the request: never sent, logged, cached or stored with a queued write, and
/// they do not keep identical GETs from sharing one fetch (the fetch carries the first caller's
/// tags). A queued write's replay and the session's token refresh carry none.
///
/// ```swift
/// struct Tenant: Sendable { let name: String }
/// var options = RequestOptions()
/// options.tags[Tenant.self] = Tenant(name: "acme")
/// // in an interceptor: context.tags[Tenant.self]?.name
/// ```
public struct RequestTags: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    /// No tags.
    public init() {}

    /// The value tagged with `type`, or `nil`; setting `nil` removes it.
    public subscript<Tag: Sendable>(_ type: Tag.Type) -> Tag? {
        get { values[ObjectIdentifier(type)] as? Tag }
        set { values[ObjectIdentifier(type)] = newValue }
    }

    /// Whether no value is tagged.
    public var isEmpty: Bool { values.isEmpty }
}
