import CoachData
import CoachModels
import Foundation

/// How a hand-pose classifier does on labeled poses: one prediction per pose, scored with the
/// shared classification metrics. Its JSON form is `ClassificationMetrics`' (`task`, `accuracy`,
/// `classes`, `confusionMatrix`, `perClass`, …) with `predictions` (every pose's `PosePrediction`, in
/// pose order) added.
public struct HandPoseClassifierEvaluation: ClassifierEvaluationJSON, Sendable {
    /// One pose's prediction.
    public struct PosePrediction: Codable, Equatable, Sendable {
        /// The file and line the pose was read from.
        public var source: String
        /// The true label.
        public var label: String
        /// The predicted label.
        public var predictedLabel: String
        /// The predicted label's probability.
        public var confidence: Double
    }

    /// The metrics in the shared schema.
    public var metrics: ClassificationMetrics
    /// Each pose's prediction, in pose order.
    public var predictions: [PosePrediction]

    /// Where the poses predicted wrong are in `predictions` (and so among the evaluated poses), most
    /// confident first: a confidently wrong pose is the first to look at.
    public var mistakePositions: [Int] {
        mostConfidentFirst(predictions.indices.filter { predictions[$0].label != predictions[$0].predictedLabel },
                           confidence: { predictions[$0].confidence })
    }

    /// Evaluates `model` on `set`'s poses (or those at `poseIndices`).
    /// - Throws: `HandPoseTrainingError.unknownLabels` for labels the model lacks (all listed);
    ///   `ActionClassifierError` when the poses' joints do not fit the model.
    public static func evaluate(_ model: HandPoseClassifierModel, on set: SinglePoseSet, poseIndices: [Int]? = nil,
                                observer: TrainingObserver? = nil) throws -> HandPoseClassifierEvaluation {
        let indices = poseIndices ?? Array(set.poses.indices)
        guard !indices.isEmpty else { throw HandPoseTrainingError.noPoses }
        let chosen = SinglePoseSet(jointSet: set.jointSet, hasDepth: set.hasDepth, poses: indices.map { set.poses[$0] })
        guard chosen.poses.contains(where: \.hasDetectedJoint) else { throw HandPoseTrainingError.noDetectedJoints(poses: chosen.poses.count) }
        let classIndex = Dictionary(uniqueKeysWithValues: model.labels.enumerated().map { ($1, $0) })
        let unknown = Set(chosen.labels).filter { classIndex[$0] == nil }.sorted()
        guard unknown.isEmpty else { throw HandPoseTrainingError.unknownLabels(unknown, modelLabels: model.labels) }
        let windows = try model.poses(of: chosen)
        var meter = ProgressMeter(phase: "evaluating", total: windows.count)
        var probabilities: [[Float]] = []
        var start = 0
        while start < windows.count {
            let end = min(start + 1024, windows.count)
            probabilities += model.probabilities(for: Array(windows[start..<end]))
            start = end
            meter.update(start, observer: observer)
        }
        var truth: [Int] = [], predicted: [Int] = [], predictions: [PosePrediction] = []
        for (pose, row) in zip(chosen.poses, probabilities) {
            var best = 0
            for c in row.indices where row[c] > row[best] { best = c }
            truth.append(classIndex[pose.label] ?? 0)
            predicted.append(best)
            predictions.append(PosePrediction(source: pose.source.description, label: pose.label,
                                              predictedLabel: model.labels[best], confidence: Double(row[best])))
        }
        let metrics = ClassificationMetrics(task: ModelTask.handPoseClassifier.rawValue, classes: model.labels,
                                            truth: truth, predictions: predicted)
        return HandPoseClassifierEvaluation(metrics: metrics, predictions: predictions)
    }
}
