import Foundation

/// Why an image classifier could not be trained or evaluated.
public enum ImageClassifierTrainingError: LocalizedError, Equatable {
    /// Configuration values that are not usable (every one listed).
    case invalidConfiguration([String])
    /// The training data has fewer than two classes with usable images.
    case tooFewClasses(path: String, labels: [String])
    /// Classes left without a single decodable training image.
    case classesWithoutImages(path: String, labels: [String])
    /// Validation or test data has labels the training data does not.
    case unknownLabels(path: String, labels: [String], known: [String])
    /// No image of the evaluation data could be used.
    case noUsableImages(path: String)

    /// A message naming the data and what to do.
    public var errorDescription: String? {
        switch self {
        case let .invalidConfiguration(problems):
            return "invalid training options:\n  " + problems.joined(separator: "\n  ")
        case let .tooFewClasses(path, labels):
            return "\(path): an image classifier needs at least 2 classes with images; found \(labels.count)"
                + (labels.isEmpty ? "" : " (\(labels.joined(separator: ", ")))")
        case let .classesWithoutImages(path, labels):
            return "\(path): no image of class\(labels.count == 1 ? "" : "es") \(labels.joined(separator: ", ")) could be decoded; every class needs at least one readable JPEG or PNG"
        case let .unknownLabels(path, labels, known):
            return "\(path): label\(labels.count == 1 ? "" : "s") \(labels.joined(separator: ", ")) not in the training data (which has \(known.joined(separator: ", ")))"
        case let .noUsableImages(path):
            return "\(path): none of the images could be decoded"
        }
    }
}
