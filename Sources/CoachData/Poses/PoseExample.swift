/// One labeled training or evaluation example: a segment of a clip, cut to its frames.
public struct PoseExample: Hashable, Sendable {
    /// The class label.
    public var label: String
    /// The segment's frames (`start ≤ time < end`), not resampled.
    public var sequence: PoseSequence
    /// The index of the clip in its dataset's `clips`.
    public var clipIndex: Int
    /// The index of the segment in that clip's `segments`.
    public var segmentIndex: Int

    /// An example labeled `label` made of `sequence`, from segment `segmentIndex` of clip `clipIndex`.
    public init(label: String, sequence: PoseSequence, clipIndex: Int, segmentIndex: Int) {
        self.label = label
        self.sequence = sequence
        self.clipIndex = clipIndex
        self.segmentIndex = segmentIndex
    }
}
