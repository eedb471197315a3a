/// Latencies in nanoseconds, counted in log-linear buckets as HdrHistogram counts them: values
/// below 256 each have a bucket of their own; above, every power-of-two range is split into 128
/// equal buckets, so a bucket is at most 1/128 of its lowest value wide and any percentile read
/// back is within 1 % of the recorded value it stands for. Recording is one shift and one
/// increment, so millions of samples cost no sorting and a fixed few hundred kilobytes at most.
struct LatencyHistogram: Sendable {
    /// Buckets per power-of-two range above the exact ones.
    static let subBuckets = 128
    /// Values below this have a bucket each.
    static let exactLimit: UInt64 = 256

    private var counts: [UInt64] = []
    /// How many values were recorded.
    private(set) var count = 0
    /// The largest value recorded (exact), 0 when empty.
    private(set) var max: UInt64 = 0
    /// The smallest value recorded (exact), 0 when empty.
    private(set) var min: UInt64 = 0
    /// The sum of the values recorded, for the mean.
    private(set) var total: Double = 0

    init() {}

    /// The bucket `value` falls in.
    static func bucket(of value: UInt64) -> Int {
        if value < exactLimit { return Int(value) }
        // `value >> shift` lies in 128..<256: its top 8 bits pick the bucket.
        let shift = (63 - value.leadingZeroBitCount) - 7
        let mantissa = Int(value >> UInt64(shift))
        return Int(exactLimit) + (shift - 1) * subBuckets + (mantissa - subBuckets)
    }

    /// The lowest and highest values of `bucket` (both included).
    static func range(of bucket: Int) -> ClosedRange<UInt64> {
        if bucket < Int(exactLimit) { return UInt64(bucket)...UInt64(bucket) }
        let offset = bucket - Int(exactLimit)
        let shift = offset / subBuckets + 1
        let mantissa = UInt64(offset % subBuckets + subBuckets)
        let lowest = mantissa << UInt64(shift)
        let width = UInt64(1) << UInt64(shift)
        // The top bucket's end would overflow: it ends at the largest value there is.
        let highest = lowest > UInt64.max - width ? UInt64.max : lowest + width - 1
        return lowest...highest
    }

    /// Counts one value.
    mutating func record(_ value: UInt64) {
        let index = Self.bucket(of: value)
        if index >= counts.count { counts += repeatElement(0, count: index + 1 - counts.count) }
        counts[index] += 1
        if count == 0 || value < min { min = value }
        if value > max { max = value }
        count += 1
        total += Double(value)
    }

    /// Counts a duration, in nanoseconds (a negative one as 0).
    mutating func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        record(seconds < 0 ? 0 : UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000))
    }

    /// Adds every value `other` counted.
    mutating func merge(_ other: LatencyHistogram) {
        guard other.count > 0 else { return }
        if counts.count < other.counts.count { counts += repeatElement(0, count: other.counts.count - counts.count) }
        for (index, value) in other.counts.enumerated() { counts[index] += value }
        min = count == 0 ? other.min : Swift.min(min, other.min)
        max = Swift.max(max, other.max)
        count += other.count
        total += other.total
    }

    /// The value at quantile `q` (0...1): the smallest recorded value with at least
    /// `ceil(q × count)` values at or below it, as the highest value of its bucket (never above
    /// the largest recorded); 0 when empty.
    func value(atQuantile q: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let rank = Swift.max(1, Swift.min(count, Int((Double(count) * q).rounded(.up))))
        var seen = 0
        for (index, bucketCount) in counts.enumerated() where bucketCount > 0 {
            seen += Int(bucketCount)
            if seen >= rank { return Swift.min(Self.range(of: index).upperBound, max) }
        }
        return max
    }

    /// ``value(atQuantile:)`` in microseconds.
    func micros(atQuantile q: Double) -> Double {
        Double(value(atQuantile: q)) / 1000
    }

    /// The mean value, 0 when empty.
    var mean: Double { count == 0 ? 0 : total / Double(count) }
}
