/// Where a query's result comes from with the normalized cache (Apollo iOS's cache policies):
/// ``ClientGraphQL/fetch(_:cachePolicy:headers:options:)`` and ``ClientGraphQL/watch(_:cachePolicy:headers:options:)``.
public enum GraphQLCachePolicy: Sendable, Equatable {
    /// The records when they hold every field the query selects, else the network (Apollo's
    /// `returnCacheDataElseFetch`). The default.
    case cacheFirst
    /// The network; its result is still stored (`fetchIgnoringCacheData`).
    case networkOnly
    /// The records, never the network; a miss is ``NetworkError/notCached``
    /// (`returnCacheDataDontFetch`).
    case cacheOnly
    /// The records' result when they hold one, then the network's (`returnCacheDataAndFetch`).
    case cacheAndNetwork
    /// The network, and nothing is stored (`fetchIgnoringCacheCompletely`).
    case noCache
}
