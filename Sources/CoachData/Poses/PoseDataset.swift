import Foundation
import CoachRandom

/// A labeled pose-sequence dataset for the action classifiers: clips with segments, and the
/// examples cut from them (plain Swift values; the models encode them as tensors).
public struct PoseDataset: Hashable, Sendable {
    /// The joint set every clip shares.
    public let jointSet: JointSet
    /// Whether keypoints carry z.
    public let hasDepth: Bool
    /// The clips in file order (folders and files sorted by name; annotation or table order otherwise).
    public let clips: [LabeledPoseClip]
    /// One example per segment, in clip order then segment order (the "file order" of `blockSplit`).
    public let examples: [PoseExample]
    /// Files met while loading that are not pose clips (not `.csv`/`.json`, or not in a class folder).
    public let ignoredFiles: [URL]

    /// A dataset of `clips` sharing `jointSet`; each segment becomes an example cut to its frames.
    public init(jointSet: JointSet, hasDepth: Bool, clips: [LabeledPoseClip], ignoredFiles: [URL] = []) {
        self.jointSet = jointSet
        self.hasDepth = hasDepth
        self.clips = clips
        self.ignoredFiles = ignoredFiles
        var examples: [PoseExample] = []
        for (clipIndex, clip) in clips.enumerated() {
            for (segmentIndex, segment) in clip.segments.enumerated() {
                let isWhole = segment.start == nil && segment.end == nil
                let sequence = isWhole ? clip.sequence : clip.sequence.trimmed(from: segment.start, to: segment.end)
                examples.append(PoseExample(label: segment.label, sequence: sequence, clipIndex: clipIndex, segmentIndex: segmentIndex))
            }
        }
        self.examples = examples
    }

    /// The examples' labels in example order.
    public var exampleLabels: [String] { examples.map(\.label) }

    /// The distinct labels, sorted.
    public var labels: [String] { Array(Set(exampleLabels)).sorted() }

    /// How many examples each label has.
    public var classCounts: [String: Int] { PoseClasses.counts(of: exampleLabels) }

    /// The label treated as background (`other`, `none`, `background` or `negative`, any case), if any.
    public var backgroundLabel: String? { PoseClasses.backgroundLabel(among: exampleLabels) }

    /// The examples resampled to `frameRate` frames per second (default 30).
    public func resampledExamples(toFrameRate frameRate: Double = 30) -> [PoseExample] {
        examples.map { example in
            var copy = example
            copy.sequence = example.sequence.resampled(toFrameRate: frameRate)
            return copy
        }
    }

    /// A seeded split of the examples, stratified by label.
    public func stratifiedSplit(testFraction: Double, generator: inout SeededGenerator) -> PoseDatasetSplit {
        PoseDatasetSplit.stratified(labels: exampleLabels, testFraction: testFraction, generator: &generator)
    }

    /// The last `testFraction` (default 25%) of each class's examples, in file order, as the test set.
    public func blockSplit(testFraction: Double = 0.25) -> PoseDatasetSplit {
        PoseDatasetSplit.block(labels: exampleLabels, testFraction: testFraction)
    }
}
