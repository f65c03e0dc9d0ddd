import CFourier
import Foundation

/// A translation between two images in pixels: the current image is the previous one moved by `(x, y)`.
public struct ImageShift: Equatable, Sendable {
    /// Horizontal movement in pixels (positive: content moved right).
    public var x: Double
    /// Vertical movement in pixels (positive: content moved down, since y grows downwards).
    public var y: Double

    /// A shift of `(x, y)` pixels.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// No movement.
    public static let zero = ImageShift(x: 0, y: 0)

    /// The Euclidean length of the shift in pixels.
    public var length: Double { (x * x + y * y).squareRoot() }

    /// The shift scaled by `factor` (e.g. from a downscaled image back to full resolution).
    public func scaled(by factor: Double) -> ImageShift { ImageShift(x: x * factor, y: y * factor) }
}

/// What phase correlation found: the shift and how clear its peak was.
public struct PhaseCorrelationResult: Equatable, Sendable {
    /// The translation such that `current(p + shift) ≈ previous(p)`.
    public var shift: ImageShift
    /// The correlation peak's height, 0...1: 1 for images that are exact translations of each
    /// other, near 0 for unrelated images (a peak below about 0.05 is not to be trusted).
    public var confidence: Double

    /// A result of `shift` with peak height `confidence`.
    public init(shift: ImageShift, confidence: Double) {
        self.shift = shift
        self.confidence = confidence
    }
}

/// Why phase correlation could not run.
public enum PhaseCorrelationError: LocalizedError, Equatable {
    /// The correlator was asked for a size without pixels.
    case emptySize(width: Int, height: Int)
    /// An image's size differs from the correlator's.
    case sizeMismatch(expectedWidth: Int, expectedHeight: Int, width: Int, height: Int)
    /// libavutil could not set up the transform (out of memory, or a size it refuses).
    case transformUnavailable(width: Int, height: Int)

    /// A message naming the sizes involved and what to do.
    public var errorDescription: String? {
        switch self {
        case let .emptySize(width, height):
            return "phase correlation needs an image of at least 1×1 pixels, got \(width)×\(height)"
        case let .sizeMismatch(expectedWidth, expectedHeight, width, height):
            return "phase correlation was set up for \(expectedWidth)×\(expectedHeight) images but got "
                + "\(width)×\(height); make a correlator for the new size"
        case let .transformUnavailable(width, height):
            return "libavutil's av_tx could not plan a \(width)×\(height) FFT (out of memory?)"
        }
    }
}

/// The windowed Fourier transform of one image, kept so that each frame is transformed once.
public struct WindowedSpectrum: Sendable {
    /// Width of the transformed image in pixels.
    public let width: Int
    /// Height of the transformed image in pixels.
    public let height: Int
    /// `width × height` complex values, interleaved real and imaginary parts.
    let values: [Float]
}

/// Translational registration of two equally sized grey images by phase correlation.
///
/// Each image has its mean removed and is multiplied by a Hann (raised cosine) window, so that
/// its borders do not correlate. The cross-power spectrum `F₂·F₁*` is normalised to unit
/// magnitude (only the phase, which carries the shift, remains) and weighted by a Gaussian low
/// pass before the inverse transform, so that for a pure translation by δ the correlation surface
/// is a sampled Gaussian of `peakWidth` pixels centred on δ, integer or not. The highest sample
/// gives the integer shift; a parabola through the logarithms of it and its two neighbours
/// along each axis (exact for a Gaussian) gives the sub-pixel part. Shifts are found up to half
/// the image size in each direction; sizes from `fastLength(atMost:)` are fast. A fixed window weights moving content less the farther it
/// moves, which pulls estimates slightly towards zero (about 2 % of the shift for a shift of an
/// eighth of the image); `shift(from:to:)` on images therefore runs a second pass with the window
/// moved along with the content, which removes that pull. The FFT is libavutil's `av_tx`; a correlator keeps its plan
/// and buffers, so reuse one for a stream of frames of one size. Not thread-safe.
public final class PhaseCorrelator {
    /// Width of the images this correlator registers.
    public let width: Int
    /// Height of the images this correlator registers.
    public let height: Int
    private let plan: OpaquePointer
    private let buffer: UnsafeMutablePointer<Float>
    private let horizontalWindow: [Float]
    private let verticalWindow: [Float]
    private let weights: [Float]
    private let idealPeak: Float
    /// The standard deviation in pixels of the correlation peak a pure translation gives.
    public static let peakWidth: Double = 1.2

    /// A correlator for `width × height` images; throws `PhaseCorrelationError` for an empty size.
    public init(width: Int, height: Int) throws {
        guard width >= 1, height >= 1 else { throw PhaseCorrelationError.emptySize(width: width, height: height) }
        guard width <= Int(Int32.max), height <= Int(Int32.max),
              let plan = coach_fourier_plan_create(Int32(width), Int32(height)) else {
            throw PhaseCorrelationError.transformUnavailable(width: width, height: height)
        }
        guard let buffer = coach_fourier_plan_buffer(plan) else {
            coach_fourier_plan_destroy(plan)
            throw PhaseCorrelationError.transformUnavailable(width: width, height: height)
        }
        self.buffer = buffer
        self.width = width
        self.height = height
        self.plan = plan
        self.horizontalWindow = Self.hannWindow(length: width)
        self.verticalWindow = Self.hannWindow(length: height)
        // Gaussian low pass exp(−2π²σ²f²) per axis, f in cycles per pixel: its inverse
        // transform is the spatial Gaussian of standard deviation σ = peakWidth.
        func lowPass(_ length: Int) -> [Float] {
            (0..<length).map { index in
                let frequency = Double(min(index, length - index)) / Double(length)
                return Float(exp(-2 * Double.pi * Double.pi * Self.peakWidth * Self.peakWidth * frequency * frequency))
            }
        }
        let horizontalPass = lowPass(width), verticalPass = lowPass(height)
        var weights = [Float](repeating: 0, count: width * height)
        var weightSum: Double = 0
        for row in 0..<height {
            for column in 0..<width {
                let weight = verticalPass[row] * horizontalPass[column]
                weights[row * width + column] = weight
                weightSum += Double(weight)
            }
        }
        self.weights = weights
        self.idealPeak = Float(weightSum / Double(width * height))
    }

    deinit { coach_fourier_plan_destroy(plan) }

    /// The largest length ≤ `limit` that libavutil (5.x) transforms quickly: m · 2ᵏ with m one of
    /// 1, 3, 5, 7, 9 or 15. Other lengths work but fall back to a direct O(n²) transform (a
    /// 320 × 180 frame takes over 300 ms instead of under 1 ms). 0 when `limit` < 1.
    public static func fastLength(atMost limit: Int) -> Int {
        guard limit >= 1 else { return 0 }
        var best = 1
        for factor in [1, 3, 5, 7, 9, 15] {
            var length = factor
            while length * 2 <= limit { length *= 2 }
            if length <= limit { best = max(best, length) }
        }
        return best
    }

    /// The shift that moves `previous` onto `current`, with the peak height as confidence.
    ///
    /// Two passes: the second windows `current` where the first pass says `previous`'s
    /// windowed content went, so the estimate is not pulled towards zero.
    public func shift(from previous: GrayImage, to current: GrayImage) throws -> PhaseCorrelationResult {
        let first = try shift(from: try spectrum(of: previous), to: try spectrum(of: current))
        let moveX = Int(first.shift.x.rounded()), moveY = Int(first.shift.y.rounded())
        guard first.confidence > 0, moveX != 0 || moveY != 0 else { return first }
        // Window centred half a shift before and after the image centre, so both stay inside.
        let previousSpectrum = try spectrum(of: previous, windowOffsetX: -(moveX / 2), windowOffsetY: -(moveY / 2))
        let currentSpectrum = try spectrum(of: current, windowOffsetX: moveX - moveX / 2, windowOffsetY: moveY - moveY / 2)
        let second = try shift(from: previousSpectrum, to: currentSpectrum)
        // Trust the refinement only where it agrees with the first pass.
        let agrees = abs(second.shift.x - first.shift.x) <= 1 && abs(second.shift.y - first.shift.y) <= 1
        return agrees ? second : first
    }

    /// The mean-removed, Hann-windowed Fourier transform of `image` (which must have the correlator's size).
    public func spectrum(of image: GrayImage) throws -> WindowedSpectrum {
        try spectrum(of: image, windowOffsetX: 0, windowOffsetY: 0)
    }

    /// The transform with the window moved right by `windowOffsetX` and down by `windowOffsetY`
    /// (zero where the moved window leaves the image).
    func spectrum(of image: GrayImage, windowOffsetX: Int, windowOffsetY: Int) throws -> WindowedSpectrum {
        try checkSize(width: image.width, height: image.height)
        let count = width * height
        var mean: Double = 0
        for value in image.pixels { mean += Double(value) }
        let offset = Float(mean / Double(count))
        image.pixels.withUnsafeBufferPointer { pixels in
            for row in 0..<height {
                let sourceRow = row - windowOffsetY
                let rowWeight = sourceRow >= 0 && sourceRow < height ? verticalWindow[sourceRow] : 0
                for column in 0..<width {
                    let sourceColumn = column - windowOffsetX
                    let weight = sourceColumn >= 0 && sourceColumn < width ? rowWeight * horizontalWindow[sourceColumn] : 0
                    let index = row * width + column
                    buffer[2 * index] = (pixels[index] - offset) * weight
                    buffer[2 * index + 1] = 0
                }
            }
        }
        coach_fourier_transform(plan, 0)
        let values = [Float](UnsafeBufferPointer(start: buffer, count: 2 * count))
        return WindowedSpectrum(width: width, height: height, values: values)
    }

    /// The shift that moves the image of `previous` onto that of `current` (both from `spectrum(of:)`).
    public func shift(from previous: WindowedSpectrum, to current: WindowedSpectrum) throws -> PhaseCorrelationResult {
        try checkSize(width: previous.width, height: previous.height)
        try checkSize(width: current.width, height: current.height)
        let count = width * height
        // Normalised cross-power spectrum current · conj(previous) / |…|; a tiny floor relative
        // to the mean magnitude keeps empty frequencies (flat images) from dividing by zero.
        var magnitudeSum: Double = 0
        previous.values.withUnsafeBufferPointer { first in
            current.values.withUnsafeBufferPointer { second in
                for index in 0..<count {
                    let real = second[2 * index] * first[2 * index] + second[2 * index + 1] * first[2 * index + 1]
                    let imaginary = second[2 * index + 1] * first[2 * index] - second[2 * index] * first[2 * index + 1]
                    buffer[2 * index] = real
                    buffer[2 * index + 1] = imaginary
                    magnitudeSum += Double((real * real + imaginary * imaginary).squareRoot())
                }
            }
        }
        guard magnitudeSum > 0, magnitudeSum.isFinite else {
            return PhaseCorrelationResult(shift: .zero, confidence: 0)
        }
        let floor = Float(magnitudeSum / Double(count) * 1e-4)
        weights.withUnsafeBufferPointer { weights in
            for index in 0..<count {
                let real = buffer[2 * index], imaginary = buffer[2 * index + 1]
                let scale = weights[index] / ((real * real + imaginary * imaginary).squareRoot() + floor)
                buffer[2 * index] = real * scale
                buffer[2 * index + 1] = imaginary * scale
            }
        }
        coach_fourier_transform(plan, 1)
        // Scaled so that a perfect match peaks at 1.
        let normaliser = 1 / (Float(count) * idealPeak)
        var best = 0
        var bestValue = -Float.infinity
        for index in 0..<count where buffer[2 * index] > bestValue {
            bestValue = buffer[2 * index]
            best = index
        }
        let peakRow = best / width, peakColumn = best % width
        func value(_ column: Int, _ row: Int) -> Float {
            let wrappedColumn = (column % width + width) % width
            let wrappedRow = (row % height + height) % height
            return buffer[2 * (wrappedRow * width + wrappedColumn)] * normaliser
        }
        let peak = bestValue * normaliser
        let integerX = peakColumn > width / 2 ? peakColumn - width : peakColumn
        let integerY = peakRow > height / 2 ? peakRow - height : peakRow
        let fractionX = width >= 3
            ? Self.subpixelOffset(peak: peak, before: value(peakColumn - 1, peakRow), after: value(peakColumn + 1, peakRow)) : 0
        let fractionY = height >= 3
            ? Self.subpixelOffset(peak: peak, before: value(peakColumn, peakRow - 1), after: value(peakColumn, peakRow + 1)) : 0
        let shift = ImageShift(x: Double(integerX) + fractionX, y: Double(integerY) + fractionY)
        return PhaseCorrelationResult(shift: shift, confidence: Double(max(0, min(1, peak))))
    }

    /// The fractional offset of a peak from three samples: the vertex of the parabola through
    /// their logarithms (exact for a Gaussian), or through the values when one is not positive.
    static func subpixelOffset(peak: Float, before: Float, after: Float) -> Double {
        guard peak > 0 else { return 0 }
        var offset: Double = 0
        if before > 0, after > 0 {
            let left = log(Double(before)), centre = log(Double(peak)), right = log(Double(after))
            let curvature = left - 2 * centre + right
            if curvature < 0 { offset = (left - right) / (2 * curvature) }
        } else {
            let curvature = Double(before) - 2 * Double(peak) + Double(after)
            if curvature < 0 { offset = (Double(before) - Double(after)) / (2 * curvature) }
        }
        return max(-0.5, min(0.5, offset))
    }

    /// The periodic Hann window of `length` samples (all ones for lengths below 3).
    static func hannWindow(length: Int) -> [Float] {
        guard length >= 3 else { return [Float](repeating: 1, count: max(0, length)) }
        return (0..<length).map { index in
            Float(0.5 - 0.5 * cos(2 * Double.pi * Double(index) / Double(length)))
        }
    }

    private func checkSize(width imageWidth: Int, height imageHeight: Int) throws {
        guard imageWidth == width, imageHeight == height else {
            throw PhaseCorrelationError.sizeMismatch(expectedWidth: width, expectedHeight: height,
                                                     width: imageWidth, height: imageHeight)
        }
    }
}
