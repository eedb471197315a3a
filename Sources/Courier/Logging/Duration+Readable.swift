extension Duration {
    /// The duration for people: `850 ms` under a second, `1.25 s` from there (at most three
    /// decimals, trailing zeros dropped).
    var readable: String {
        let milliseconds = (inSeconds * 1000).rounded()
        if abs(milliseconds) < 1000 { return "\(Int(milliseconds)) ms" }
        var text = String(Int(milliseconds) / 1000)
        var fraction = abs(Int(milliseconds) % 1000)
        if fraction != 0 {
            var digits = 3
            while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
            let padded = String(fraction)
            text += "." + String(repeating: "0", count: digits - padded.count) + padded
        }
        return text + " s"
    }
}
