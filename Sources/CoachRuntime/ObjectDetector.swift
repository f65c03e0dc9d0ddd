import CoachData
import CoachModels
import Foundation

/// Finds objects (e.g. the cornhole board, its hole and the bags) in images with a Coach
/// object-detector model file — what the Action & Vision app does with its Create ML
/// board detector.
///
/// Images are letterboxed into the model's input by its own encoding (the one training
/// used), run through the shared EfficientNet-Lite0 backbone and the trained head; boxes
/// of each class that overlap more than `iouThreshold` are suppressed (per-class NMS).
///
/// ```swift
/// import CoachRuntime
///
/// let detector = try ObjectDetector(contentsOf: URL(fileURLWithPath: "board.h5"))
/// var boards: [NormalizedRect] = []
/// for object in try detector.detect(inImageAt: URL(fileURLWithPath: "frame.jpg")) where object.label == "board" {
///     boards.append(object.boundingBox)                 // normalised, origin top-left
///     let visionBox = object.boundingBox.visionRect     // origin bottom-left, as Vision reports it
///     _ = (object.confidence, visionBox)
/// }
/// ```
public final class ObjectDetector {
    /// The detector's head, configuration and labels.
    public let model: ObjectDetectorModel
    /// The backbone the model runs on (checked against the model's SHA-256 reference).
    public let backbone: Backbone
    private let extractor: DetectorFeatureExtractor

    /// Loads the detector at `url` and the backbone it names: from `backboneURL`, else
    /// `Backbone.defaultLocation()` ($COACH_BACKBONE, ./models/, beside the executable).
    ///
    /// - Throws: `ModelFileError` for a missing or damaged file, `DetectorModelError` for
    ///   another kind of model, `BackboneError.notFound`/`.mismatch` when the backbone is
    ///   missing or is not the one the model was trained on.
    public convenience init(contentsOf url: URL, backbone backboneURL: URL? = nil) throws {
        let file = try ModelFile.read(from: url)
        let model = try ObjectDetectorModel(file: file)
        guard let location = backboneURL ?? Backbone.defaultLocation() else {
            throw BackboneError.notFound(searched: "$COACH_BACKBONE, ./models/\(Backbone.defaultFileName) and beside the coach executable")
        }
        let backbone = try Backbone.load(from: location)
        if let reference = file.metadata.backbone, reference.sha256 != backbone.sha256 {
            throw BackboneError.mismatch(model: url.path, expectedName: reference.name, expectedSHA256: reference.sha256,
                                         foundName: backbone.name, foundSHA256: backbone.sha256, backbonePath: location.path)
        }
        self.init(model: model, backbone: backbone)
    }

    /// A detector running `model` on `backbone`.
    public init(model: ObjectDetectorModel, backbone: Backbone) {
        self.model = model
        self.backbone = backbone
        self.extractor = DetectorFeatureExtractor(backbone: backbone.network, configuration: model.configuration)
    }

    /// The class labels, in the model's order.
    public var classLabels: [String] { model.classLabels }

    /// The default minimum confidence of a reported object (0.5).
    public static let defaultConfidenceThreshold = ObjectDetectorModel.defaultConfidenceThreshold
    /// The default IoU above which a less confident box of the same class is suppressed (0.45).
    public static let defaultIoUThreshold = ObjectDetectorModel.defaultIoUThreshold

    /// The objects in `image` with confidence ≥ `confidenceThreshold`, most confident first.
    public func detect(in image: RGBImage, confidenceThreshold: Double = defaultConfidenceThreshold,
                       iouThreshold: Double = defaultIoUThreshold) throws -> [DetectedObject] {
        guard image.width > 0, image.height > 0 else { return [] }
        let detections = try model.detect(in: image, extractor: extractor, confidenceThreshold: confidenceThreshold,
                                          iouThreshold: iouThreshold)
        let width = Double(image.width), height = Double(image.height)
        return detections.map { d in
            let labels = zip(model.classLabels, d.classConfidences)
                .map { ClassConfidence(label: $0, confidence: Double($1)) }
                .sorted { $0.confidence != $1.confidence ? $0.confidence > $1.confidence : $0.label < $1.label }
            return DetectedObject(label: model.classLabels[d.classIndex], confidence: Double(d.confidence), labels: labels,
                                  boundingBox: NormalizedRect(x: d.box.minX / width, y: d.box.minY / height,
                                                              width: d.box.width / width, height: d.box.height / height))
        }
    }

    /// Decodes the JPEG or PNG at `url` (upright per its EXIF orientation; large JPEGs at
    /// reduced scale, exactly as in training) and detects objects in it. Boxes are
    /// normalised, so they apply to the full-size image.
    public func detect(inImageAt url: URL, confidenceThreshold: Double = defaultConfidenceThreshold,
                       iouThreshold: Double = defaultIoUThreshold) throws -> [DetectedObject] {
        let decoded = try ImageDecoder.decode(contentsOf: url, options: extractor.decodingOptions)
        return try detect(in: decoded.image, confidenceThreshold: confidenceThreshold, iouThreshold: iouThreshold)
    }
}
