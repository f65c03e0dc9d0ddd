import CoachData
import CoachModels
import Foundation

/// Classifies single hand poses (Vision's 21 hand joints) with a Coach hand-pose model file.
///
/// Each observation comes with its chirality — the hand Vision saw — which the model's encoding
/// uses as it was trained to (by default left hands are mirrored to right ones, so one model
/// serves both). An app can also route the two hands to two models, as Apple's hand-action demo
/// does. Poses are normalised by the model's own input encoding, the one training used.
///
/// ```swift
/// import CoachRuntime
///
/// let classifier = try HandPoseClassifier(contentsOf: URL(fileURLWithPath: "models/hand-poses.h5"))
/// classifier.keypointOrigin = .bottomLeft                 // Vision's coordinates
/// let prediction = classifier.prediction(for: joints, chirality: .left)   // joints: [String: Keypoint]
/// print(prediction.label, prediction.confidence)          // e.g. "peace 0.97"
/// for (label, probability) in prediction.probabilities { print(label, probability) }
/// ```
public final class HandPoseClassifier {
    /// The loaded model.
    public let model: HandPoseClassifierModel
    /// The origin of the coordinates given to `prediction(for:chirality:)`; `.bottomLeft` (Vision's) flips y to 1 − y.
    public var keypointOrigin: KeypointOrigin = .topLeft

    /// Loads the hand-pose classifier in the model file at `url`.
    /// - Throws: `ModelFileError` for a missing, damaged or foreign file or mismatched weights.
    public convenience init(contentsOf url: URL) throws {
        self.init(model: try HandPoseClassifierModel(contentsOf: url))
    }

    /// A classifier running `model`.
    public init(model: HandPoseClassifierModel) {
        self.model = model
    }

    /// The class labels, in the model's order.
    public var labels: [String] { model.labels }
    /// The joint names, in the order `prediction(for:chirality:)` takes keypoints.
    public var jointNames: [String] { model.jointSet.names }

    /// Classifies one pose given as one keypoint per joint in `jointNames` order (nil, or
    /// confidence 0, for a joint not detected; extra entries are ignored), of the hand `chirality`.
    public func prediction(for keypoints: [Keypoint?], chirality: Chirality? = nil) -> HandPosePrediction {
        predictions(for: [keypoints], chiralities: [chirality])[0]
    }

    /// Classifies one pose given by joint name (Vision's recognised points); joints the model
    /// does not use are ignored and missing ones count as not detected.
    public func prediction(for joints: [String: Keypoint], chirality: Chirality? = nil) -> HandPosePrediction {
        prediction(for: model.jointSet.names.map { joints[$0] }, chirality: chirality)
    }

    /// Classifies several poses together (faster than one by one); `chiralities` has one entry
    /// per pose, or is empty when no hand is known.
    public func predictions(for poses: [[Keypoint?]], chiralities: [Chirality?] = []) -> [HandPosePrediction] {
        let windows = poses.enumerated().map { index, keypoints in
            window(keypoints, chirality: index < chiralities.count ? chiralities[index] : nil)
        }
        return predictions(for: windows)
    }

    /// Classifies the poses of a single-pose set (e.g. read with `SinglePoseSet.readPoses`),
    /// matching its joints to the model's by name.
    /// - Throws: `ActionClassifierError` when the set's joints are not the model's, or the model
    ///   needs z the set lacks.
    public func predictions(for set: SinglePoseSet) throws -> [HandPosePrediction] {
        predictions(for: try model.poses(of: set))
    }

    private func window(_ keypoints: [Keypoint?], chirality: Chirality?) -> PoseWindow {
        let count = model.jointSet.count
        var points = Array(keypoints.prefix(count))
        if points.count < count { points += [Keypoint?](repeating: nil, count: count - points.count) }
        points = points.map { point in
            guard var point, point.confidence > 0, point.x.isFinite, point.y.isFinite else { return nil }
            if keypointOrigin == .bottomLeft { point.y = 1 - point.y }
            if !model.encoding.includesDepth { point.z = nil }
            return point
        }
        return PoseWindow(keypoints: points, hasDepth: model.encoding.includesDepth, chirality: chirality)
    }

    private func predictions(for windows: [PoseWindow]) -> [HandPosePrediction] {
        zip(windows, model.probabilities(for: windows)).map { window, probabilities in
            var best = 0
            for i in probabilities.indices where probabilities[i] > probabilities[best] { best = i }
            return HandPosePrediction(label: model.labels[best], confidence: probabilities[best],
                                      probabilities: Array(zip(model.labels, probabilities)).map { ($0.0, $0.1) },
                                      chirality: window.chirality)
        }
    }
}
