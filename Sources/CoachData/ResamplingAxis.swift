import Foundation

/// The weights that resample one image axis the way scikit-image's
/// `resize(order=1, anti_aliasing=True, mode='reflect')` does, fused into one filter.
///
/// scikit-image (0.19 – 0.26) first blurs with `scipy.ndimage.gaussian_filter`
/// (σ = max(0, (in/out − 1) / 2), truncated at 4σ: radius = ⌊4σ + 0.5⌋, boundary
/// mode 'mirror', i.e. `d c b | a b c d | c b a`), then samples with
/// `scipy.ndimage.zoom(order=1, grid_mode=True, mode='mirror')`: output pixel `o` reads the
/// blurred signal at `(o + 0.5)·in/out − 0.5` by linear interpolation, the coordinate and
/// the two sample indices mirrored as scipy does. Both steps are linear and separable, so
/// each output sample is one weighted sum of a few input samples; this type computes those
/// weights once per axis (in Double) and the image passes apply them.
struct ResamplingAxis {
    /// Number of output samples described (the requested window of the output grid).
    let count: Int
    /// Weights per output sample (zero-padded to the widest).
    let taps: Int
    /// For output sample `i`, the first input index its weights apply to.
    let firstInput: [Int]
    /// `count × taps` weights, row `i` for output sample `i`.
    let weights: [Float]

    /// Weights for outputs `window` of an `inputLength → outputLength` resize.
    init(inputLength: Int, outputLength: Int, window: Range<Int>) {
        precondition(inputLength > 0 && outputLength > 0 && window.lowerBound >= 0 && window.upperBound <= outputLength)
        let factor = Double(inputLength) / Double(outputLength)
        let gaussian = ResamplingAxis.gaussianKernel(sigma: max(0, (factor - 1) / 2))
        let radius = gaussian.count / 2

        // Dense scratch over the input axis, cleared after each output sample.
        var accumulator = [Double](repeating: 0, count: inputLength)
        var spans: [(first: Int, values: [Double])] = []
        spans.reserveCapacity(window.count)
        var widest = 1
        for output in window {
            let coordinate = ResamplingAxis.mirroredCoordinate((Double(output) + 0.5) * factor - 0.5,
                                                               length: inputLength)
            let start = Int(coordinate.rounded(.down))
            let fraction = coordinate - Double(start)
            var low = inputLength, high = -1
            for (offset, interpolationWeight) in [(0, 1 - fraction), (1, fraction)] where interpolationWeight != 0 {
                let center = ResamplingAxis.mirroredIndex(start + offset, length: inputLength)
                for k in -radius...radius {
                    let index = ResamplingAxis.mirroredIndex(center + k, length: inputLength)
                    accumulator[index] += interpolationWeight * gaussian[k + radius]
                    low = min(low, index)
                    high = max(high, index)
                }
            }
            if high < low { low = 0; high = 0 }  // all-zero row (cannot happen, kept safe)
            let values = Array(accumulator[low...high])
            for index in low...high { accumulator[index] = 0 }
            spans.append((low, values))
            widest = max(widest, values.count)
        }
        var firstInput = [Int](repeating: 0, count: window.count)
        var weights = [Float](repeating: 0, count: window.count * widest)
        for (row, span) in spans.enumerated() {
            // Keep the span inside the input so the passes never read past the end.
            let first = min(span.first, inputLength - widest)
            firstInput[row] = first
            for (offset, value) in span.values.enumerated() {
                weights[row * widest + span.first - first + offset] = Float(value)
            }
        }
        self.count = window.count
        self.taps = widest
        self.firstInput = firstInput
        self.weights = weights
    }

    /// scipy's normalised Gaussian `exp(−x²/2σ²)` for x in −r...r, r = ⌊4σ + 0.5⌋; `[1]` when σ ≤ 1e-15 (no blur).
    static func gaussianKernel(sigma: Double) -> [Double] {
        guard sigma > 1e-15 else { return [1] }
        let radius = Int(4 * sigma + 0.5)
        let values = (-radius...radius).map { exp(-0.5 / (sigma * sigma) * Double($0 * $0)) }
        let sum = values.reduce(0, +)
        return values.map { $0 / sum }
    }

    /// scipy.ndimage's 'mirror' mapping of an out-of-range interpolation coordinate.
    static func mirroredCoordinate(_ coordinate: Double, length: Int) -> Double {
        var value = coordinate
        if value < 0 {
            guard length > 1 else { return 0 }
            let period = Double(2 * length - 2)
            value = period * Double(Int(-value / period)) + value
            value = value <= Double(1 - length) ? value + period : -value
        } else if value > Double(length - 1) {
            guard length > 1 else { return 0 }
            let period = Double(2 * length - 2)
            value -= period * Double(Int(value / period))
            if value >= Double(length) { value = period - value }
        }
        return value
    }

    /// 'mirror' extension of a sample index (`d c b | a b c d | c b a`), periodic with period 2n − 2.
    static func mirroredIndex(_ index: Int, length: Int) -> Int {
        guard length > 1 else { return 0 }
        let period = 2 * length - 2
        var value = index % period
        if value < 0 { value += period }
        return value >= length ? period - value : value
    }
}
