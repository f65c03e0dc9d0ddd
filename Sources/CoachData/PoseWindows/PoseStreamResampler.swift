/// Turns poses that arrive one by one, at any times, into frames at a fixed rate — the streaming
/// form of `PoseSequence.resampled(toFrameRate:)`, giving the same frames for the same poses.
///
/// Output frames fall at `first + k / frameRate`, where `first` is the first pose's time. A frame
/// between two poses interpolates each joint detected in both (x, y, z, confidence); a joint
/// missing from either is undetected. A frame that coincides with a pose copies it. Camera feeds
/// at 60 fps are thus halved to a 30 fps model, and 24 fps feeds are filled in.
public struct PoseStreamResampler: Sendable {
    /// The output frame rate.
    public let frameRate: Double
    private var previous: PoseFrame?
    private var origin: Double = 0
    private var nextIndex = 0
    private static let tolerance = 1e-9

    /// A resampler producing `frameRate` frames per second (must be positive).
    public init(frameRate: Double) {
        precondition(frameRate > 0 && frameRate.isFinite, "the frame rate must be positive")
        self.frameRate = frameRate
    }

    /// The time of the next frame this resampler will produce, or nil before the first pose.
    public var nextFrameTime: Double? { previous == nil ? nil : origin + Double(nextIndex) / frameRate }

    /// Adds a pose observed at `frame.time` and returns the output frames it completes (possibly
    /// none, when poses arrive faster than `frameRate`). A pose not later than the previous one
    /// is ignored.
    public mutating func append(_ frame: PoseFrame) -> [PoseFrame] {
        let tolerance = PoseStreamResampler.tolerance
        guard frame.time.isFinite else { return [] }
        guard let before = previous else {
            previous = frame
            origin = frame.time
            nextIndex = 1
            return [frame]
        }
        guard frame.time > before.time + tolerance else { return [] }
        var output: [PoseFrame] = []
        while true {
            let time = origin + Double(nextIndex) / frameRate
            if time > frame.time + tolerance { break }
            if abs(frame.time - time) <= tolerance {
                output.append(PoseFrame(time: time, keypoints: frame.keypoints))
            } else if abs(before.time - time) <= tolerance {
                output.append(PoseFrame(time: time, keypoints: before.keypoints))
            } else {
                let weight = Float((time - before.time) / (frame.time - before.time))
                let keypoints: [Keypoint?] = zip(before.keypoints, frame.keypoints).map { pair in
                    guard let a = pair.0, let b = pair.1 else { return nil }
                    return Keypoint.interpolated(from: a, to: b, weight: weight)
                }
                output.append(PoseFrame(time: time, keypoints: keypoints))
            }
            nextIndex += 1
        }
        previous = frame
        return output
    }

    /// Forgets every pose: the next one starts a new frame grid.
    public mutating func reset() {
        previous = nil
        nextIndex = 0
        origin = 0
    }
}
