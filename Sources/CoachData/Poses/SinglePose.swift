import Foundation

/// One labeled pose without time (FORMATS §3.5), e.g. a hand shape for the hand-pose classifier.
public struct SinglePose: Hashable, Sendable {
    /// The class label.
    public var label: String
    /// One entry per joint of the set's joint set, in its order; nil where not detected.
    public var keypoints: [Keypoint?]
    /// The hand, when the file has a `chirality` column.
    public var chirality: Chirality?
    /// The file and line it was read from.
    public var source: PoseSource

    /// A pose labeled `label` with `keypoints` in joint-set order.
    public init(label: String, keypoints: [Keypoint?], chirality: Chirality? = nil, source: PoseSource) {
        self.label = label
        self.keypoints = keypoints
        self.chirality = chirality
        self.source = source
    }

    /// Whether any joint was detected (present with a confidence above 0).
    public var hasDetectedJoint: Bool { keypoints.contains { ($0?.confidence ?? 0) > 0 } }
}
