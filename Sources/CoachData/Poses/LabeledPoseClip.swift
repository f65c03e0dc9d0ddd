/// A clip together with its labeled segments (one whole-clip segment for folder-per-class and tables).
public struct LabeledPoseClip: Hashable, Sendable {
    /// The clip.
    public var sequence: PoseSequence
    /// Its labeled segments, in annotation order.
    public var segments: [PoseSegment]

    /// A clip with its segments.
    public init(sequence: PoseSequence, segments: [PoseSegment]) {
        self.sequence = sequence
        self.segments = segments
    }
}
