import CoachModels
import Foundation

/// Exports a Coach model file to another format: the library call behind `coach export`.
///
/// ```swift
/// import CoachExport
///
/// let data = try ModelExporter.export(modelAt: URL(fileURLWithPath: "models/gear.h5"), format: .onnx)
/// try data.write(to: URL(fileURLWithPath: "gear.onnx"), options: .atomic)
/// ```
///
/// Every kind exports to Core ML (`ImageClassifierCoreMLExporter`, `ObjectDetectorCoreMLExporter`,
/// `ActionClassifierCoreMLExporter` — also hand actions — and `HandPoseClassifierCoreMLExporter`)
/// and to ONNX (`ImageClassifierONNXExporter`, `ObjectDetectorONNXExporter`,
/// `PoseClassifierONNXExporter`); another task throws `ExportError.notImplemented`.
public enum ModelExporter {
    /// Whether `task` exports to `format` today.
    public static func supports(task: ModelTask, format: ExportFormat) -> Bool {
        switch (task, format) {
        case (.imageClassifier, _), (.objectDetector, _), (.actionClassifier, _), (.handPoseClassifier, _): return true
        default: return false
        }
    }

    /// The exported bytes of the model file at `modelURL`.
    ///
    /// Image classifiers and detectors run on the shared backbone, read from `backboneURL` or
    /// `Backbone.defaultLocation()`. Throws `ModelFileError` when the file is not a Coach
    /// model, `ExportError.notImplemented` for kinds and formats not exported yet (before any
    /// weights are read), `ImageClassifierModelError`/`DetectorModelError` for a damaged model,
    /// and `BackboneError` when the backbone is missing or not the model's.
    public static func export(modelAt modelURL: URL, format: ExportFormat, backbone backboneURL: URL? = nil) throws -> Data {
        let path = modelURL.path
        let task = try ModelFileSummary.read(from: modelURL).metadata.task
        guard supports(task: task, format: format) else {
            throw ExportError.notImplemented(path: path, task: task.rawValue, format: format)
        }
        let file = try ModelFile.read(from: modelURL)
        if task == .handPoseClassifier {
            let classifier = try HandPoseClassifierModel(file: file)
            return format == .coreml ? HandPoseClassifierCoreMLExporter.model(classifier: classifier, metadata: file.metadata).serialized()
                : PoseClassifierONNXExporter.model(handPose: classifier, metadata: file.metadata).serialized()
        }
        if task == .actionClassifier {
            let classifier = try ActionClassifierModel(file: file)
            return format == .coreml ? ActionClassifierCoreMLExporter.model(classifier: classifier, metadata: file.metadata).serialized()
                : PoseClassifierONNXExporter.model(action: classifier, metadata: file.metadata).serialized()
        }
        if task == .objectDetector {
            let detector = try ObjectDetectorModel(file: file)
            let backbone = try loadBackbone(backboneURL)
            if let reference = file.metadata.backbone, reference.sha256 != backbone.sha256 {
                throw BackboneError.mismatch(model: path, expectedName: reference.name, expectedSHA256: reference.sha256,
                                             foundName: backbone.name, foundSHA256: backbone.sha256,
                                             backbonePath: backbone.url.path)
            }
            switch format {
            case .onnx:
                return ObjectDetectorONNXExporter.model(detector: detector, backbone: backbone, metadata: file.metadata).serialized()
            case .coreml:
                return ObjectDetectorCoreMLExporter.model(detector: detector, backbone: backbone, metadata: file.metadata).serialized()
            }
        }
        let classifier = try ImageClassifierModel(file: file, path: path)
        let backbone = try loadBackbone(backboneURL)
        try classifier.checkBackbone(backbone, modelPath: path)
        switch format {
        case .onnx:
            return ImageClassifierONNXExporter.model(classifier: classifier, backbone: backbone, metadata: file.metadata).serialized()
        case .coreml:
            return ImageClassifierCoreMLExporter.model(classifier: classifier, backbone: backbone, metadata: file.metadata).serialized()
        }
    }

    private static func loadBackbone(_ url: URL?) throws -> Backbone {
        guard let location = url ?? Backbone.defaultLocation() else {
            throw BackboneError.notFound(searched: "$COACH_BACKBONE, ./models/\(Backbone.defaultFileName) and models/ beside the executable")
        }
        return try Backbone.load(from: location)
    }
}
