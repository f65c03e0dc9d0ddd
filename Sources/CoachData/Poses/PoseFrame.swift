/// One frame of a pose sequence: its time and one optional keypoint per joint (nil = not detected).
public struct PoseFrame: Hashable, Sendable {
    /// Seconds from the start of the recording.
    public var time: Double
    /// One entry per joint of the sequence's joint set, in its order; nil where the joint was not detected.
    public var keypoints: [Keypoint?]

    /// A frame at `time` with `keypoints` in joint-set order.
    public init(time: Double, keypoints: [Keypoint?]) {
        self.time = time
        self.keypoints = keypoints
    }

    /// How many joints were detected in this frame.
    public var detectedCount: Int { keypoints.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }
}
