/// One observed keypoint of a synthetic pose: normalised image coordinates and a detector
/// confidence.
public struct SyntheticKeypoint: Equatable, Sendable {
    /// Horizontal position as a fraction of the image width, 0 at the left edge.
    public var x: Float
    /// Vertical position as a fraction of the image height, 0 at the top edge.
    public var y: Float
    /// The detector's confidence, in (0, 1].
    public var confidence: Float

    /// A keypoint at (`x`, `y`) with `confidence`.
    public init(x: Float, y: Float, confidence: Float) {
        self.x = x
        self.y = y
        self.confidence = confidence
    }
}

/// One frame of a synthetic pose sequence: its time and one keypoint per joint
/// (`nil` where the simulated detector missed the joint).
public struct SyntheticPoseFrame: Equatable, Sendable {
    /// Seconds since the start of the clip.
    public var time: Double
    /// One entry per joint, in the clip's joint order; `nil` means not detected.
    public var keypoints: [SyntheticKeypoint?]

    /// A frame at `time` with `keypoints`.
    public init(time: Double, keypoints: [SyntheticKeypoint?]) {
        self.time = time
        self.keypoints = keypoints
    }
}
