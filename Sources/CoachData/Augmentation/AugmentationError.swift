import Foundation

/// Why an augmentation list could not be built.
public enum AugmentationError: LocalizedError, Equatable {
    /// Names in an `--augment` list that are not augmentations (all of them, in order).
    case unknownNames([String])
    /// The same augmentation named more than once.
    case duplicateNames([String])
    /// A probability outside 0...1.
    case invalidProbability(name: String, value: Float)

    /// A sentence naming the problem and the accepted names.
    public var errorDescription: String? {
        switch self {
        case let .unknownNames(names):
            let list = names.map { "'\($0)'" }.joined(separator: ", ")
            return "unknown augmentation \(list); expected a comma-separated list of: "
                + Augmentation.names.joined(separator: ", ")
        case let .duplicateNames(names):
            return "augmentation named more than once: \(names.joined(separator: ", "))"
        case let .invalidProbability(name, value):
            return "augmentation '\(name)': probability \(value) is not in 0...1"
        }
    }
}
