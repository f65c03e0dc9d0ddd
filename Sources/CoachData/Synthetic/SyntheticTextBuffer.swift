/// A byte buffer for writing CSV and JSON text quickly and identically on every machine:
/// numbers are printed in fixed-point notation with a given number of decimals, without
/// going through locale-dependent or platform-dependent formatting.
package struct SyntheticTextBuffer {
    /// The UTF-8 text written so far.
    package private(set) var bytes: [UInt8] = []

    /// An empty buffer with room for `capacity` bytes.
    package init(reservingCapacity capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends `text` verbatim.
    package mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends one ASCII byte.
    package mutating func append(byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends `value` with exactly `decimals` digits after the point (rounded half away
    /// from zero); negative zero is printed as zero.
    package mutating func append(_ value: Double, decimals: Int) {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int64((value * Double(scale)).rounded(.toNearestOrAwayFromZero))
        if scaled < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = scaled.magnitude
        appendDigits(magnitude / UInt64(scale))
        if decimals > 0 {
            bytes.append(UInt8(ascii: "."))
            var fraction = magnitude % UInt64(scale)
            var divisor = UInt64(scale) / 10
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(fraction / divisor))
                fraction %= divisor
                divisor /= 10
            }
        }
    }

    /// Appends a float with `decimals` digits after the point.
    package mutating func append(_ value: Float, decimals: Int) {
        append(Double(value), decimals: decimals)
    }

    /// Appends a non-negative integer.
    package mutating func append(integer value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(UInt64(value.magnitude))
    }

    private mutating func appendDigits(_ value: UInt64) {
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var digits: [UInt8] = []
        var rest = value
        while rest > 0 {
            digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        }
        bytes.append(contentsOf: digits.reversed())
    }
}
