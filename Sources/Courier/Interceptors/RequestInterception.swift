/// What a request interceptor decided.
public enum RequestInterception: Sendable {
    /// Go on with this (possibly changed) request.
    case proceed(HTTPRequest)
    /// Do not send anything: answer with this response.
    case respond(HTTPResponse)
}
