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
/// Today: image classifiers to ONNX (`ImageClassifierONNXExporter`). Other kinds and Core ML
/// throw `ExportError.notImplemented` (issue 15).
public enum ModelExporter {
    /// Whether `task` exports to `format` today.
    public static func supports(task: ModelTask, format: ExportFormat) -> Bool {
        task == .imageClassifier && format == .onnx
    }

    /// The exported bytes of the model file at `modelURL`.
    ///
    /// Image classifiers run on the shared backbone, read from `backboneURL` or
    /// `Backbone.defaultLocation()`. Throws `ModelFileError` when the file is not a Coach
    /// model, `ExportError.notImplemented` for kinds and formats not exported yet (before any
    /// weights are read), `ImageClassifierModelError` for a damaged classifier, and
    /// `BackboneError` when the backbone is missing or not the model's.
    public static func export(modelAt modelURL: URL, format: ExportFormat, backbone backboneURL: URL? = nil) throws -> Data {
        let path = modelURL.path
        let task = try ModelFileSummary.read(from: modelURL).metadata.task
        guard supports(task: task, format: format) else {
            throw ExportError.notImplemented(path: path, task: task.rawValue, format: format)
        }
        let file = try ModelFile.read(from: modelURL)
        let classifier = try ImageClassifierModel(file: file, path: path)
        guard let location = backboneURL ?? Backbone.defaultLocation() else {
            throw BackboneError.notFound(searched: "$COACH_BACKBONE, ./models/\(Backbone.defaultFileName) and models/ beside the executable")
        }
        let backbone = try Backbone.load(from: location)
        try classifier.checkBackbone(backbone, modelPath: path)
        return ImageClassifierONNXExporter.model(classifier: classifier, backbone: backbone, metadata: file.metadata).serialized()
    }
}
