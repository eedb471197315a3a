import Testing

/// Every test of the target, one at a time: they share one server, and the restart test stops it.
@Suite(.serialized) enum PostgresTests {}
