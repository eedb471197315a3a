/// What a request interceptor decided.
public enum RequestInterception: Sendable {
    /// Go on with this (possibly changed) request.
    case proceed(HTTPRequest)
    /// Do not send anything: answer with this response. The steps after the interceptors
    /// (security guard, auth, logging, transport) never see it; the response interceptors do.
    case respond(HTTPResponse)
}
