/// Global thresholds for grey images: Otsu's method and binarisation.
///
/// Values are treated on the 0...255 scale of `GrayImage` (values outside are clamped into the
/// end bins of the 256-bin histogram).
public enum Threshold {
    /// Otsu's threshold of the pixels in `region` (the whole image when nil): the level `t`
    /// maximising the between-class variance of {value < t} and {value ≥ t}, on a 256-bin
    /// histogram. Nil when the region is empty or all its values fall in one bin.
    public static func otsu(of image: GrayImage, in region: PixelRect? = nil) -> Float? {
        let area = (region ?? PixelRect(x: 0, y: 0, width: image.width, height: image.height))
            .clamped(toWidth: image.width, height: image.height)
        guard !area.isEmpty else { return nil }
        var histogram = [Double](repeating: 0, count: 256)
        for row in area.y..<(area.y + area.height) {
            for column in area.x..<(area.x + area.width) {
                histogram[bin(of: image.pixels[row * image.width + column])] += 1
            }
        }
        return otsu(histogram: histogram)
    }

    /// Otsu's threshold over values directly (e.g. a region that is not a rectangle).
    public static func otsu(values: [Float]) -> Float? {
        guard !values.isEmpty else { return nil }
        var histogram = [Double](repeating: 0, count: 256)
        for value in values { histogram[bin(of: value)] += 1 }
        return otsu(histogram: histogram)
    }

    /// Otsu's threshold of a 256-bin histogram (bin k holds values in [k, k+1)); nil when
    /// fewer than two bins are occupied.
    public static func otsu(histogram: [Double]) -> Float? {
        guard histogram.count == 256 else { return nil }
        let total = histogram.reduce(0, +)
        guard total > 0, histogram.filter({ $0 > 0 }).count >= 2 else { return nil }
        var weightedTotal: Double = 0
        for (level, count) in histogram.enumerated() { weightedTotal += Double(level) * count }
        var lowerCount: Double = 0, lowerSum: Double = 0
        var bestLevel = 0, bestVariance = -1.0
        // Splitting after bin k puts bins 0...k below the threshold k + 1.
        for level in 0..<255 {
            lowerCount += histogram[level]
            lowerSum += Double(level) * histogram[level]
            let upperCount = total - lowerCount
            guard lowerCount > 0, upperCount > 0 else { continue }
            let lowerMean = lowerSum / lowerCount
            let upperMean = (weightedTotal - lowerSum) / upperCount
            let variance = lowerCount * upperCount * (lowerMean - upperMean) * (lowerMean - upperMean)
            if variance > bestVariance {
                bestVariance = variance
                bestLevel = level
            }
        }
        return Float(bestLevel + 1)
    }

    /// How well `threshold` splits the region, 0...1: between-class variance over total
    /// variance (Otsu's η; near 1 for two clean levels, about 0.75 for uniform noise).
    public static func separability(of image: GrayImage, threshold: Float, in region: PixelRect? = nil) -> Double {
        let area = (region ?? PixelRect(x: 0, y: 0, width: image.width, height: image.height))
            .clamped(toWidth: image.width, height: image.height)
        guard !area.isEmpty else { return 0 }
        var count = [0.0, 0.0], sum = [0.0, 0.0], squares = 0.0
        for row in area.y..<(area.y + area.height) {
            for column in area.x..<(area.x + area.width) {
                let value = Double(image.pixels[row * image.width + column])
                let side = value >= Double(threshold) ? 1 : 0
                count[side] += 1
                sum[side] += value
                squares += value * value
            }
        }
        let total = count[0] + count[1]
        let mean = (sum[0] + sum[1]) / total
        let variance = squares / total - mean * mean
        guard variance > 1e-9, count[0] > 0, count[1] > 0 else { return 0 }
        let difference = sum[0] / count[0] - sum[1] / count[1]
        return min(1, count[0] * count[1] / (total * total) * difference * difference / variance)
    }

    /// The mask of pixels with value ≥ `threshold` (or < `threshold` when `above` is false),
    /// over `region` (the whole image when nil); the mask has the region's size.
    public static func binarize(_ image: GrayImage, threshold: Float, above: Bool = true,
                                in region: PixelRect? = nil) -> BinaryMask {
        let area = (region ?? PixelRect(x: 0, y: 0, width: image.width, height: image.height))
            .clamped(toWidth: image.width, height: image.height)
        var mask = BinaryMask(width: area.width, height: area.height)
        for row in 0..<area.height {
            for column in 0..<area.width {
                let value = image.pixels[(area.y + row) * image.width + area.x + column]
                mask.values[row * area.width + column] = (value >= threshold) == above
            }
        }
        return mask
    }

    /// The histogram bin of a value on the 0...255 scale.
    static func bin(of value: Float) -> Int {
        guard value.isFinite else { return 0 }
        return Int(min(max(value, 0), 255))
    }
}
