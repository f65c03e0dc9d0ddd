/// The bounds Coach holds every number that sizes pose work to — from options, data files and
/// model files alike — so memory and time follow the input, not a number written in it.
public enum PoseLimits {
    /// Frames per second: 0.1 (one frame every 10 s) to 1,000 (high-speed cameras).
    public static let frameRates: ClosedRange<Double> = 0.1...1_000
    /// Frames per classifier window.
    public static let windowLengths: ClosedRange<Int> = 1...10_000
    /// The largest magnitude of any number in a pose file (coordinates in pixels or metres,
    /// times, confidences): larger ones overflow float32 or every computation after them.
    public static let numberMagnitude: Double = 1e9
    /// Seconds a frame's time may be from zero (about 115 days).
    public static let timeMagnitude: Double = 10_000_000
    /// A pause longer than this between two frames is left out when a clip is resampled: no
    /// frames are invented across it (so a time jump costs nothing).
    public static let maximumInterpolatedGap: Double = 1

    /// Why `rate` is not a frame rate Coach uses, or nil when it is one.
    public static func frameRateProblem(_ rate: Double) -> String? {
        frameRates.contains(rate) ? nil : "\(rate) frames/s is outside \(frameRates.lowerBound)…\(Int(frameRates.upperBound)): expected a camera's frame rate"
    }
}
