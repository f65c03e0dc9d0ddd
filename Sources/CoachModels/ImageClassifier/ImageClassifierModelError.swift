import Foundation

/// Why an image-classifier model file cannot be used.
public enum ImageClassifierModelError: LocalizedError, Equatable {
    /// The file holds another kind of model.
    case wrongTask(path: String, task: String)
    /// The file's tensors or metadata do not form a classifier head; every problem listed.
    case malformed(path: String, problems: [String])
    /// The input specification is not one Coach's image classifier can encode.
    case unsupportedInput(path: String, problems: [String])
    /// The model names no backbone (image classifiers run on the shared backbone).
    case missingBackbone(path: String)

    /// A message naming the file and what to do.
    public var errorDescription: String? {
        switch self {
        case let .wrongTask(path, task):
            return "\(path): this is a '\(task)' model, not an image classifier"
        case let .malformed(path, problems):
            return "\(path): not a valid image-classifier model:\n  " + problems.joined(separator: "\n  ")
        case let .unsupportedInput(path, problems):
            return "\(path): unsupported image input specification:\n  " + problems.joined(separator: "\n  ")
        case let .missingBackbone(path):
            return "\(path): the model does not name the backbone it was trained on (metadata key 'backbone'); retrain it with coach train image-classifier"
        }
    }
}
