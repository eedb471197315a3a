/// How urgently a call needs a slot when its origin's admission limit is reached
/// (``RequestOptions/priority``): calls waiting for a slot start highest priority first, in
/// arrival order within one priority, and when the waiting queue is full the lowest priority is
/// refused first (``NetworkError/overloaded``). Replays of the offline queue are
/// ``background``.
public enum RequestPriority: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// Work nobody waits on (prefetches, sync, the offline queue's replays): started last,
    /// shed first.
    case background = 0
    /// Ordinary calls: what a call without a priority has.
    case `default` = 1
    /// Calls a person is waiting on: started first, shed last.
    case interactive = 2

    /// Lower priorities order first.
    public static func < (lhs: RequestPriority, rhs: RequestPriority) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// `background`, `default` or `interactive`: the metrics integration's label value.
    public var description: String {
        switch self {
        case .background: "background"
        case .default: "default"
        case .interactive: "interactive"
        }
    }
}
