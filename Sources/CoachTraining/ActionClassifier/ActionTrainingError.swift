import Foundation

/// Why an action classifier cannot be trained, evaluated or resumed; each message says what to do.
public enum ActionTrainingError: LocalizedError, Equatable, Sendable {
    /// The configuration has invalid values (each problem listed).
    case invalidConfiguration([String])
    /// Training needs at least two classes.
    case tooFewClasses(found: [String])
    /// The evaluation data has labels the model does not know.
    case unknownLabels([String], modelLabels: [String])
    /// There are no examples to train on or evaluate.
    case noExamples
    /// The checkpoint at `path` cannot be used to resume (different data or configuration, or unreadable).
    case checkpointMismatch(path: String, reason: String)
    /// `--resume` was asked for but there is no checkpoint.
    case checkpointMissing(path: String)

    /// A sentence describing the problem and the fix.
    public var errorDescription: String? {
        switch self {
        case .invalidConfiguration(let problems):
            return "invalid training options: " + problems.joined(separator: "; ")
        case .tooFewClasses(let found):
            let list = found.isEmpty ? "none" : found.joined(separator: ", ")
            return "an action classifier needs at least two classes, found \(found.count) (\(list)); add examples of another class, e.g. a background class 'other'"
        case let .unknownLabels(labels, modelLabels):
            return "the data has labels the model was not trained on: \(labels.joined(separator: ", ")); the model knows \(modelLabels.joined(separator: ", "))"
        case .noExamples:
            return "there are no examples to use; check the data"
        case let .checkpointMismatch(path, reason):
            return "cannot resume from checkpoint '\(path)': \(reason); train without --resume to start over"
        case .checkpointMissing(let path):
            return "cannot resume: there is no checkpoint at '\(path)'; train without --resume to start"
        }
    }
}
