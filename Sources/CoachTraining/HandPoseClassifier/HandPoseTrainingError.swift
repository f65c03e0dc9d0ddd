import Foundation

/// Why a hand-pose classifier cannot be trained or evaluated; each message says what to do.
/// (Checkpoint problems are `ActionTrainingError`'s checkpoint cases, shared by the pose trainers.)
public enum HandPoseTrainingError: LocalizedError, Equatable, Sendable {
    /// The configuration has invalid values (each problem listed).
    case invalidConfiguration([String])
    /// Training needs at least two classes.
    case tooFewClasses(found: [String])
    /// The evaluation data has labels the model does not know.
    case unknownLabels([String], modelLabels: [String])
    /// There are no poses to train on or evaluate.
    case noPoses
    /// None of the poses has a detected joint (every keypoint empty or of confidence 0).
    case noDetectedJoints(poses: Int)

    /// A sentence describing the problem and the fix.
    public var errorDescription: String? {
        switch self {
        case .invalidConfiguration(let problems):
            return "invalid training options: " + problems.joined(separator: "; ")
        case .tooFewClasses(let found):
            let list = found.isEmpty ? "none" : found.joined(separator: ", ")
            return "a hand-pose classifier needs at least two classes, found \(found.count) (\(list)); add poses of another class, e.g. a background class 'background' of other hand shapes"
        case let .unknownLabels(labels, modelLabels):
            return "the data has labels the model was not trained on: \(labels.joined(separator: ", ")); the model knows \(modelLabels.joined(separator: ", "))"
        case .noPoses:
            return "there are no poses to use; check the data"
        case .noDetectedJoints(let poses):
            return "none of the \(poses) pose\(poses == 1 ? "" : "s") has a detected joint (every keypoint is empty or has confidence 0): "
                + "there is nothing to learn from or classify; check that the x and y columns are filled"
        }
    }
}
