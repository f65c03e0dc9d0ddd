import CoachRandom
import Foundation

/// Pixel-value adjustments used by the photometric augmentations. Samples are in 0...255
/// units (as `FloatImage(_ rgb:)` gives); every adjustment clamps its result to 0...255 so
/// the next one sees what a real image would hold.
extension FloatImage {
    /// Luminance weights (ITU-R BT.601), used by contrast and saturation.
    static let lumaWeights: (red: Float, green: Float, blue: Float) = (0.299, 0.587, 0.114)

    /// Every sample multiplied by `2^stops` (a camera exposure change of `stops` EV), clamped.
    public func adjustingExposure(stops: Float) -> FloatImage {
        let factor = Float(Foundation.pow(2.0, Double(stops)))
        return mapped { $0 * factor }
    }

    /// Contrast scaled by `factor` about the image's mean luminance `m`:
    /// `m + factor · (v − m)` per sample, clamped (1 leaves the image unchanged, 0 makes it
    /// uniform grey at `m`). Images without 3 channels use the mean of all samples.
    public func adjustingContrast(factor: Float) -> FloatImage {
        let mean = meanLuminance()
        return mapped { mean + factor * ($0 - mean) }
    }

    /// Saturation scaled by `factor`: each RGB pixel becomes `L + factor · (v − L)` with
    /// `L` its BT.601 luminance, clamped (0 gives greyscale, 1 leaves it unchanged).
    /// Images without 3 channels are returned unchanged.
    public func adjustingSaturation(factor: Float) -> FloatImage {
        guard channels == 3 else { return self }
        var result = values
        let weights = FloatImage.lumaWeights
        result.withUnsafeMutableBufferPointer { buffer in
            for index in stride(from: 0, to: buffer.count, by: 3) {
                let red = buffer[index], green = buffer[index + 1], blue = buffer[index + 2]
                let luma = weights.red * red + weights.green * green + weights.blue * blue
                buffer[index] = FloatImage.clamp(luma + factor * (red - luma))
                buffer[index + 1] = FloatImage.clamp(luma + factor * (green - luma))
                buffer[index + 2] = FloatImage.clamp(luma + factor * (blue - luma))
            }
        }
        return FloatImage(uncheckedWidth: width, height: height, channels: channels, values: result)
    }

    /// A Gaussian blur of standard deviation `sigma` pixels: a separable, normalised kernel
    /// of radius `⌈3σ⌉`, edges extended by repeating the border pixel (so a constant image
    /// stays constant). `sigma ≤ 0` returns the image unchanged.
    public func blurred(sigma: Double) -> FloatImage {
        guard sigma > 0, width > 0, height > 0 else { return self }
        let radius = max(1, Int(Foundation.ceil(3 * sigma)))
        var kernel = (-radius...radius).map { Float(Foundation.exp(-Double($0 * $0) / (2 * sigma * sigma))) }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        let horizontal = FloatImage.convolve(values, width: width, height: height, channels: channels,
                                             kernel: kernel, alongRows: true)
        let both = FloatImage.convolve(horizontal, width: width, height: height, channels: channels,
                                       kernel: kernel, alongRows: false)
        return FloatImage(uncheckedWidth: width, height: height, channels: channels, values: both)
    }

    /// Independent Gaussian noise of standard deviation `standardDeviation` (0...255 units)
    /// added to every sample, clamped; the noise comes from `generator`.
    public func addingNoise(standardDeviation: Float, using generator: inout SeededGenerator) -> FloatImage {
        guard standardDeviation > 0 else { return self }
        var result = values
        for index in result.indices {
            result[index] = FloatImage.clamp(result[index] + standardDeviation * generator.nextNormal())
        }
        return FloatImage(uncheckedWidth: width, height: height, channels: channels, values: result)
    }

    /// The mean BT.601 luminance (3 channels) or mean sample (other channel counts).
    func meanLuminance() -> Float {
        guard !values.isEmpty else { return 0 }
        var sum = 0.0
        if channels == 3 {
            let weights = FloatImage.lumaWeights
            for index in stride(from: 0, to: values.count, by: 3) {
                sum += Double(weights.red * values[index] + weights.green * values[index + 1]
                              + weights.blue * values[index + 2])
            }
            return Float(sum / Double(values.count / 3))
        }
        for value in values { sum += Double(value) }
        return Float(sum / Double(values.count))
    }

    /// Every sample through `transform`, clamped to 0...255.
    private func mapped(_ transform: (Float) -> Float) -> FloatImage {
        var result = values
        result.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices { buffer[index] = FloatImage.clamp(transform(buffer[index])) }
        }
        return FloatImage(uncheckedWidth: width, height: height, channels: channels, values: result)
    }

    @inline(__always) static func clamp(_ value: Float) -> Float { Swift.min(255, Swift.max(0, value)) }

    /// One 1-D convolution pass (rows or columns) with edge replication.
    private static func convolve(_ input: [Float], width: Int, height: Int, channels: Int,
                                 kernel: [Float], alongRows: Bool) -> [Float] {
        var output = [Float](repeating: 0, count: input.count)
        let radius = kernel.count / 2
        let length = alongRows ? width : height, lines = alongRows ? height : width
        // Stride between neighbours along the pass, and between the starts of lines.
        let step = alongRows ? channels : width * channels
        let lineStep = alongRows ? width * channels : channels
        input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                kernel.withUnsafeBufferPointer { taps in
                    for line in 0..<lines {
                        let base = line * lineStep
                        for position in 0..<length {
                            for channel in 0..<channels {
                                var sum: Float = 0
                                for tap in 0..<taps.count {
                                    let neighbour = Swift.min(length - 1, Swift.max(0, position + tap - radius))
                                    sum += taps[tap] * source[base + neighbour * step + channel]
                                }
                                target[base + position * step + channel] = sum
                            }
                        }
                    }
                }
            }
        }
        return output
    }
}
