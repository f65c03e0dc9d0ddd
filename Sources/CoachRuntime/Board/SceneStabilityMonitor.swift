import CoachData
import CoachVision

/// Watches a fixed camera's frames and says when the scene has stopped moving (the app's setup
/// step before it analyses the field).
///
/// Each frame is turned into a downscaled grey image and registered against the previous one by
/// phase correlation; the last `historyLength` shifts are kept, and the scene is stable when their
/// moving average — the mean of their lengths — is below `threshold` pixels (Apple's Action &
/// Vision: 15 shifts, 10 px). A panning camera moves about 10 px a frame; a camera at rest gives
/// shifts near 0. The mean of the lengths, not the length of the mean vector: frame-to-frame
/// shifts telescope, so the mean vector is (last position − first position) / 15 and would call a
/// hand-held camera that jitters about one spot stable.
///
/// Shifts are reported in full-resolution pixels. Frames are reduced by an integer factor so
/// that their short side is about `workingShortSide` pixels (720p by 4, 1080p by 6), then cropped
/// centrally to sizes libavutil transforms fast (`PhaseCorrelator.fastLength`: 320 × 160 for 720p). A frame of another size than the last one
/// starts over. Frames with a side below `minimumFrameSide` cannot be registered: they give no
/// shift and start over too. Not thread-safe; use one monitor per stream.
public final class SceneStabilityMonitor {
    /// How many recent shifts the moving average covers.
    public let historyLength: Int
    /// The moving average's length, in full-resolution pixels, below which the scene is stable.
    public let threshold: Double
    /// The short side, in pixels, frames are downscaled to (about) before registration.
    public let workingShortSide: Int
    /// The most recent frame-to-frame shifts, oldest first, in full-resolution pixels.
    public private(set) var recentShifts: [ImageShift] = []
    /// The confidence (correlation peak, 0...1) of the latest shift; nil before the second frame.
    public private(set) var lastConfidence: Double?
    private var correlator: PhaseCorrelator?
    private var previousSpectrum: WindowedSpectrum?
    private var frameSize: (width: Int, height: Int)?
    private var factor = 1
    private var crop = PixelRect(x: 0, y: 0, width: 0, height: 0)

    /// The smallest frame side registered (smaller frames give no shift).
    public static let minimumFrameSide = 8

    /// A monitor with the app's defaults: 15 shifts, 10 px, frames worked on at a short side of about 180 px.
    public init(historyLength: Int = 15, threshold: Double = 10, workingShortSide: Int = 180) {
        self.historyLength = max(1, historyLength)
        self.threshold = threshold
        self.workingShortSide = max(Self.minimumFrameSide, workingShortSide)
    }

    /// The mean of the recent shifts (nil before the second frame).
    public var movingAverage: ImageShift? {
        guard !recentShifts.isEmpty else { return nil }
        var sum = ImageShift.zero
        for shift in recentShifts {
            sum.x += shift.x
            sum.y += shift.y
        }
        return sum.scaled(by: 1 / Double(recentShifts.count))
    }

    /// The mean length of the recent shifts in full-resolution pixels: how far the camera moves a
    /// frame (nil before the second frame).
    public var meanShiftLength: Double? {
        guard !recentShifts.isEmpty else { return nil }
        return recentShifts.reduce(0) { $0 + $1.length } / Double(recentShifts.count)
    }

    /// Whether `historyLength` shifts have been seen and their mean length is below `threshold`.
    public var isStable: Bool {
        guard recentShifts.count >= historyLength, let motion = meanShiftLength else { return false }
        return motion < threshold
    }

    /// Forgets all frames (the next frame is a first frame again).
    public func reset() {
        recentShifts.removeAll()
        lastConfidence = nil
        previousSpectrum = nil
    }

    /// Registers `frame` against the previous frame and returns the shift of its content in
    /// full-resolution pixels (`frame` ≈ previous moved by the shift). Nil for the first frame,
    /// the first frame of a new size, and frames too small to register (which also start over).
    @discardableResult
    public func update(with frame: RGBImage) -> ImageShift? {
        guard frame.width >= Self.minimumFrameSide, frame.height >= Self.minimumFrameSide else {
            reset()
            frameSize = nil
            correlator = nil
            return nil
        }
        if frameSize?.width != frame.width || frameSize?.height != frame.height || correlator == nil {
            configure(width: frame.width, height: frame.height)
        }
        guard let correlator, let spectrum = try? correlator.spectrum(of: downscaledGrey(frame)) else { return nil }
        defer { previousSpectrum = spectrum }
        guard let previous = previousSpectrum, let result = try? correlator.shift(from: previous, to: spectrum) else {
            return nil
        }
        let shift = result.shift.scaled(by: Double(factor))
        recentShifts.append(shift)
        if recentShifts.count > historyLength { recentShifts.removeFirst(recentShifts.count - historyLength) }
        lastConfidence = result.confidence
        return shift
    }

    /// Chooses the downscaling factor and crop for a new frame size and starts over.
    private func configure(width: Int, height: Int) {
        reset()
        frameSize = (width, height)
        factor = max(1, min(width, height) / workingShortSide)
        let smallWidth = width / factor, smallHeight = height / factor
        let cropWidth = PhaseCorrelator.fastLength(atMost: smallWidth)
        let cropHeight = PhaseCorrelator.fastLength(atMost: smallHeight)
        crop = PixelRect(x: (smallWidth - cropWidth) / 2, y: (smallHeight - cropHeight) / 2,
                         width: cropWidth, height: cropHeight)
        correlator = try? PhaseCorrelator(width: cropWidth, height: cropHeight)
    }

    /// The luminance of the central crop of `frame`, averaged over `factor × factor` blocks.
    private func downscaledGrey(_ frame: RGBImage) -> GrayImage {
        let outputWidth = crop.width, outputHeight = crop.height
        var values = [Float](repeating: 0, count: outputWidth * outputHeight)
        let step = factor
        let scale = 1 / Float(step * step)
        frame.pixels.withUnsafeBufferPointer { source in
            values.withUnsafeMutableBufferPointer { target in
                // Integer sums of R, G and B per block row, weighted once per output pixel.
                for row in 0..<outputHeight {
                    let top = (crop.y + row) * step
                    for column in 0..<outputWidth {
                        var red = 0, green = 0, blue = 0
                        for y in top..<(top + step) {
                            var index = (y * frame.width + (crop.x + column) * step) * 3
                            for _ in 0..<step {
                                red &+= Int(source[index])
                                green &+= Int(source[index + 1])
                                blue &+= Int(source[index + 2])
                                index += 3
                            }
                        }
                        target[row * outputWidth + column] =
                            (0.299 * Float(red) + 0.587 * Float(green) + 0.114 * Float(blue)) * scale
                    }
                }
            }
        }
        return GrayImage(width: outputWidth, height: outputHeight, pixels: values)
    }
}
