import CoachData
import Foundation
import CoachModels

/// What an action-classifier dataset holds, as the trainer sees it: classes and their counts,
/// the background class, clips shorter than the window (padded), the joint set — the report
/// `coach train action-classifier` prints before training.
public struct ActionDatasetSummary: Codable, Equatable, Sendable {
    /// One class's counts.
    public struct ClassSummary: Codable, Equatable, Sendable {
        /// The label.
        public var label: String
        /// Annotated segments (or whole clips) of this class.
        public var examples: Int
        /// Training windows one iteration draws from them.
        public var windowsPerIteration: Int
        /// Of its examples, those shorter than the window (padded with zero poses).
        public var paddedExamples: Int
        /// Their total duration in seconds.
        public var seconds: Double
    }

    /// `body18`, `hand21` or `custom(…)`.
    public var jointSet: String
    /// The joint names in order.
    public var jointNames: [String]
    /// Whether poses carry z.
    public var hasDepth: Bool
    /// Frames per window.
    public var windowLength: Int
    /// Frames per second windows are sampled at.
    public var frameRate: Double
    /// Distinct clips.
    public var clipCount: Int
    /// Examples (segments) in all classes.
    public var exampleCount: Int
    /// Examples shorter than the window, padded with zero poses as the Action & Vision app does.
    public var paddedExampleCount: Int
    /// Training windows per iteration in all classes.
    public var windowsPerIteration: Int
    /// Per-class counts, classes sorted.
    public var classes: [ClassSummary]
    /// The class treated as background (`other`, `none`, `background`, `negative`), if any.
    public var backgroundLabel: String?
    /// Of the keypoints the examples could have (joints detected somewhere), the share not
    /// detected (`PoseSequence.missedShare`); the `occlude` augmentation follows it.
    public var missedShare: Double
    /// Things the user should know (no background class, tiny classes, padding).
    public var warnings: [String]

    /// Summarises `dataset`'s examples (or those at `exampleIndices`) as cut by `sampler`.
    public init(dataset: PoseDataset, exampleIndices: [Int]? = nil, sampler: PoseWindowSampler) {
        let indices = exampleIndices ?? Array(dataset.examples.indices)
        let examples = indices.map { dataset.examples[$0] }
        jointSet = dataset.jointSet.description
        jointNames = dataset.jointSet.names
        hasDepth = dataset.hasDepth
        windowLength = sampler.windowLength
        frameRate = sampler.frameRate
        clipCount = Set(examples.map(\.clipIndex)).count
        exampleCount = examples.count
        var byLabel: [String: ClassSummary] = [:]
        for example in examples {
            let frames = sampler.preparedFrameCount(of: example.sequence)
            var entry = byLabel[example.label] ?? ClassSummary(label: example.label, examples: 0, windowsPerIteration: 0,
                                                              paddedExamples: 0, seconds: 0)
            entry.examples += 1
            entry.windowsPerIteration += sampler.trainingWindowCount(frameCount: frames)
            if sampler.needsPadding(frameCount: frames) { entry.paddedExamples += 1 }
            entry.seconds += example.sequence.duration
            byLabel[example.label] = entry
        }
        classes = byLabel.values.sorted { $0.label < $1.label }
        paddedExampleCount = classes.reduce(0) { $0 + $1.paddedExamples }
        windowsPerIteration = classes.reduce(0) { $0 + $1.windowsPerIteration }
        let candidates = PoseClasses.backgroundCandidates(among: examples.map(\.label))
        backgroundLabel = candidates.first
        missedShare = PoseSequence.missedShare(of: examples.map(\.sequence))

        var warnings: [String] = []
        if candidates.isEmpty {
            warnings.append("no background class: name one of the classes 'other', 'none', 'background' or 'negative' and fill it with ordinary movement, or the classifier will call every window one of the actions")
        } else if candidates.count > 1 {
            warnings.append("several classes look like background (\(candidates.joined(separator: ", "))); '\(candidates[0])' is treated as the background class")
        }
        for entry in classes where entry.examples < 5 {
            warnings.append("class '\(entry.label)' has only \(entry.examples) example\(entry.examples == 1 ? "" : "s"); add more for a reliable classifier")
        }
        if paddedExampleCount > 0 {
            let seconds = Double(sampler.windowLength) / sampler.frameRate
            warnings.append("\(paddedExampleCount) of \(exampleCount) examples are shorter than the \(sampler.windowLength)-frame window (\(String(format: "%.2f", seconds)) s at \(ActionDatasetSummary.format(sampler.frameRate)) fps) and were padded with zero poses")
        }
        var detected = [Bool](repeating: false, count: dataset.jointSet.count)
        for example in examples {
            for frame in example.sequence.frames {
                for (joint, keypoint) in frame.keypoints.enumerated() where joint < detected.count {
                    if let keypoint, keypoint.confidence > 0 { detected[joint] = true }
                }
            }
        }
        let never = dataset.jointSet.names.indices.filter { !detected[$0] }.map { dataset.jointSet.names[$0] }
        if !never.isEmpty && never.count < dataset.jointSet.count {
            warnings.append("\(never.count) of \(dataset.jointSet.count) joints are never detected in any frame (\(never.joined(separator: ", "))): the model learns nothing from them, so poses that do have them are classified from the other joints alone")
        }
        self.warnings = warnings
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }
}
