import CoachData
import CoachModels
import Foundation

/// How an action classifier does on labeled segments: one prediction per segment (or whole clip)
/// — by default the class with the highest geometric mean probability over the segment's windows
/// (`SegmentVote`) — scored with the shared classification metrics, plus the accuracy of the
/// individual windows.
///
/// Its JSON form is `ClassificationMetrics`' (`task`, `accuracy`, `classes`, `confusionMatrix`,
/// `perClass`, …) with `windowAccuracy`, `windowCount`, `paddedExampleCount` and `predictions` (every
/// segment's `ExamplePrediction`, in example order) added.
public struct ActionClassifierEvaluation: Encodable, Sendable {
    /// One segment's prediction.
    public struct ExamplePrediction: Codable, Equatable, Sendable {
        /// The clip file (and table sequence) the segment comes from.
        public var source: String
        /// The segment's start and end in seconds (the clip's own, for a whole clip).
        public var start: Double
        /// See `start`.
        public var end: Double
        /// The true label.
        public var label: String
        /// The predicted label.
        public var predictedLabel: String
        /// The predicted label's probability, combined over the windows (`SegmentVote`).
        public var confidence: Double
        /// Windows the segment was cut into.
        public var windowCount: Int
        /// Of those, the windows whose own top class is the true label.
        public var correctWindowCount: Int
    }

    /// Segment-level metrics in the shared schema.
    public var metrics: ClassificationMetrics
    /// The fraction of all windows whose top class is their segment's label.
    public var windowAccuracy: Double
    /// Windows evaluated.
    public var windowCount: Int
    /// Segments shorter than the window (padded with zero poses).
    public var paddedExampleCount: Int
    /// Each segment's prediction, in example order.
    public var predictions: [ExamplePrediction]

    /// The segments predicted wrong, most confident first (a confidently wrong segment is the first
    /// to look at: a mislabelled clip, or an action the model has learnt as another).
    public var mistakes: [ExamplePrediction] { mistakePositions.map { predictions[$0] } }

    /// Where `mistakes` are in `predictions` (and so among the evaluated examples), most confident
    /// first.
    public var mistakePositions: [Int] {
        mostConfidentFirst(predictions.indices.filter { predictions[$0].label != predictions[$0].predictedLabel },
                           confidence: { predictions[$0].confidence })
    }

    /// How a segment's windows combine into its prediction.
    ///
    /// The mean log probability is the default: each window is evidence, and a class that some
    /// window all but rules out loses even where other windows lean to it. Over nine local sets (`coach-bench --only
    /// action-peers`, seeds 0–2, 2026-11-29) it scored the same as the mean probability on six
    /// and higher on three (the 18 generated actions: 0.840 against 0.830 in 2-D with 13 joints).
    public enum SegmentVote: String, Sendable, CaseIterable {
        /// The class with the highest mean probability over the windows.
        case meanProbability
        /// The class with the highest mean log probability (the windows' normalised geometric
        /// mean; the default).
        case meanLogProbability

        /// The segment's class probabilities from its windows' (`windows` rows of `classCount`).
        public func combined(_ windows: [[Float]], classCount: Int) -> [Double] {
            var mean = [Double](repeating: 0, count: classCount)
            for row in windows {
                for c in 0..<classCount {
                    let p = Double(row[c])
                    mean[c] += (self == .meanProbability ? p : log(max(p, 1e-12))) / Double(windows.count)
                }
            }
            guard self == .meanLogProbability else { return mean }
            let top = mean.max() ?? 0
            let scaled = mean.map { exp($0 - top) }
            let sum = scaled.reduce(0, +)
            return scaled.map { $0 / sum }
        }
    }

    /// Evaluates `model` on `dataset`'s examples (or those at `exampleIndices`), cutting windows
    /// every `stride` frames (default a quarter window), each segment's windows combined by `vote`.
    /// - Throws: `ActionTrainingError.unknownLabels` for labels the model lacks (all listed);
    ///   `ActionClassifierError` when the clips' joints do not fit the model.
    public static func evaluate(_ model: ActionClassifierModel, on dataset: PoseDataset, exampleIndices: [Int]? = nil,
                                stride: Int? = nil, vote: SegmentVote = .meanLogProbability,
                                observer: TrainingObserver? = nil) throws -> ActionClassifierEvaluation {
        let indices = exampleIndices ?? Array(dataset.examples.indices)
        guard !indices.isEmpty else { throw ActionTrainingError.noExamples }
        let examples = indices.map { dataset.examples[$0] }
        let classIndex = Dictionary(uniqueKeysWithValues: model.labels.enumerated().map { ($1, $0) })
        let unknown = Set(examples.map(\.label)).filter { classIndex[$0] == nil }.sorted()
        guard unknown.isEmpty else { throw ActionTrainingError.unknownLabels(unknown, modelLabels: model.labels) }

        var meter = ProgressMeter(phase: "evaluating", total: examples.count)
        var truth: [Int] = [], predicted: [Int] = [], predictions: [ExamplePrediction] = []
        var windowCount = 0, correctWindows = 0, padded = 0
        for (position, example) in examples.enumerated() {
            let windows = try model.windows(covering: example.sequence, stride: stride)
            if windows.contains(where: { $0.paddedFrameCount > 0 }) && windows.count == 1 { padded += 1 }
            let probabilities = model.probabilities(for: windows)
            let target = classIndex[example.label] ?? 0
            let mean = vote.combined(probabilities, classCount: model.labels.count)
            let correct = probabilities.filter { argmax($0.map(Double.init)) == target }.count
            let best = argmax(mean)
            truth.append(target)
            predicted.append(best)
            windowCount += windows.count
            correctWindows += correct
            predictions.append(ExamplePrediction(
                source: example.sequence.source.description, start: example.sequence.startTime, end: example.sequence.endTime,
                label: example.label, predictedLabel: model.labels[best], confidence: mean[best],
                windowCount: windows.count, correctWindowCount: correct))
            meter.update(position + 1, observer: observer)
        }
        let metrics = ClassificationMetrics(task: ModelTask.actionClassifier.rawValue, classes: model.labels,
                                            truth: truth, predictions: predicted)
        return ActionClassifierEvaluation(metrics: metrics, windowAccuracy: Double(correctWindows) / Double(max(windowCount, 1)),
                                          windowCount: windowCount, paddedExampleCount: padded, predictions: predictions)
    }

    private static func argmax(_ values: [Double]) -> Int {
        var best = 0
        for i in values.indices where values[i] > values[best] { best = i }
        return best
    }

    private enum CodingKeys: String, CodingKey {
        case windowAccuracy, windowCount, paddedExampleCount, predictions
    }

    /// Encodes the shared metrics' keys, the window figures and every segment's prediction in one
    /// object.
    public func encode(to encoder: Encoder) throws {
        try metrics.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(windowAccuracy, forKey: .windowAccuracy)
        try container.encode(windowCount, forKey: .windowCount)
        try container.encode(paddedExampleCount, forKey: .paddedExampleCount)
        try container.encode(predictions, forKey: .predictions)
    }
}
