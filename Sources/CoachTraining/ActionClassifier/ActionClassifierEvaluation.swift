import CoachData
import CoachModels
import Foundation

/// How an action classifier does on labeled segments: one prediction per segment (or whole clip)
/// — the class with the highest mean probability over the segment's windows — scored with the
/// shared classification metrics, plus the accuracy of the individual windows.
///
/// Its JSON form is `ClassificationMetrics`' (`task`, `accuracy`, `classes`, `confusionMatrix`,
/// `perClass`, …) with `windowAccuracy`, `windowCount` and `paddedExampleCount` added.
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
        /// The predicted label's mean probability.
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

    /// Evaluates `model` on `dataset`'s examples (or those at `exampleIndices`), cutting windows
    /// every `stride` frames (default a quarter window).
    /// - Throws: `ActionTrainingError.unknownLabels` for labels the model lacks (all listed);
    ///   `ActionClassifierError` when the clips' joints do not fit the model.
    public static func evaluate(_ model: ActionClassifierModel, on dataset: PoseDataset, exampleIndices: [Int]? = nil,
                                stride: Int? = nil, observer: TrainingObserver? = nil) throws -> ActionClassifierEvaluation {
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
            var mean = [Double](repeating: 0, count: model.labels.count)
            var correct = 0
            for row in probabilities {
                for c in row.indices { mean[c] += Double(row[c]) / Double(probabilities.count) }
                if argmax(row.map(Double.init)) == target { correct += 1 }
            }
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
        case windowAccuracy, windowCount, paddedExampleCount
    }

    /// Encodes the shared metrics' keys and the window figures in one object.
    public func encode(to encoder: Encoder) throws {
        try metrics.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(windowAccuracy, forKey: .windowAccuracy)
        try container.encode(windowCount, forKey: .windowCount)
        try container.encode(paddedExampleCount, forKey: .paddedExampleCount)
    }
}
