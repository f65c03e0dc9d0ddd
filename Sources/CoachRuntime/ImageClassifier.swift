@_exported import CoachData
import CoachModels
import Foundation

/// One class and how confident the classifier is in it.
public struct ClassificationPrediction: Equatable, Sendable, Codable {
    /// The class label.
    public var label: String
    /// The softmax probability, 0...1 (the predictions of one image sum to 1).
    public var confidence: Double

    /// A prediction of `label` with `confidence`.
    public init(label: String, confidence: Double) {
        self.label = label
        self.confidence = confidence
    }
}

/// Runs an image classifier trained by `coach train image-classifier`.
///
/// The model file holds only the head; the shared backbone is loaded beside it (found at
/// `Backbone.defaultLocation()` — `$COACH_BACKBONE`, then `models/efficientnet-lite0.h5` —
/// unless given) and must be the file the model was trained with (same SHA-256).
///
/// ```swift
/// import CoachRuntime
///
/// let classifier = try ImageClassifier(contentsOf: URL(fileURLWithPath: "models/gear.h5"))
/// let predictions = try classifier.predictions(for: URL(fileURLWithPath: "photo.jpg"))
/// let best = predictions[0]   // e.g. label "cone", confidence 0.97; all classes follow, sorted
/// ```
public final class ImageClassifier {
    /// The trained model (labels, head, input encoding, backbone reference).
    public let model: ImageClassifierModel
    /// The backbone it runs on.
    public let backbone: Backbone
    private let extractor: ImageFeatureExtractor

    /// Class labels in model order.
    public var labels: [String] { model.labels }

    /// Loads the model at `modelURL` and the backbone at `backboneURL` (default: `Backbone.defaultLocation()`).
    ///
    /// Throws `ModelFileError`, `ImageClassifierModelError`, `BackboneError.notFound` when no
    /// backbone is found, or `BackboneError.mismatch` when it is not the model's backbone.
    public convenience init(contentsOf modelURL: URL, backbone backboneURL: URL? = nil) throws {
        let model = try ImageClassifierModel.read(from: modelURL)
        guard let location = backboneURL ?? Backbone.defaultLocation() else {
            throw BackboneError.notFound(searched: "$COACH_BACKBONE, ./models/\(Backbone.defaultFileName) and models/ beside the executable")
        }
        try self.init(model: model, backbone: Backbone.load(from: location), modelPath: modelURL.path)
    }

    /// A classifier over an already loaded model and backbone (share one backbone between models);
    /// throws `BackboneError.mismatch` unless it is the model's backbone.
    public init(model: ImageClassifierModel, backbone: Backbone, modelPath: String = "the model") throws {
        try model.checkBackbone(backbone, modelPath: modelPath)
        self.model = model
        self.backbone = backbone
        self.extractor = ImageFeatureExtractor(backbone: backbone, encoding: model.encoding, layers: model.featureLayers)
    }

    /// Every class with its confidence for the JPEG or PNG at `url`, most confident first.
    /// Throws `ImageError` (naming the file) when it cannot be decoded.
    public func predictions(for url: URL) throws -> [ClassificationPrediction] {
        try predictions(for: model.encoding.decode(contentsOf: url))
    }

    /// Every class with its confidence for decoded pixels, most confident first.
    public func predictions(for image: RGBImage) throws -> [ClassificationPrediction] {
        try predictions(for: [image])[0]
    }

    /// Predictions for several images at once (the backbone runs them in batches).
    public func predictions(for images: [RGBImage]) throws -> [[ClassificationPrediction]] {
        guard !images.isEmpty else { return [] }
        let probabilities = model.head.probabilities(features: try extractor.features(for: images))
        let classes = labels.count
        return images.indices.map { row in
            labels.enumerated().map { column, label in
                ClassificationPrediction(label: label, confidence: Double(probabilities.scalars[row * classes + column]))
            }.sorted { $0.confidence != $1.confidence ? $0.confidence > $1.confidence : $0.label < $1.label }
        }
    }
}
