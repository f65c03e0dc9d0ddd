import Foundation

/// Why a model cannot be exported.
public enum ExportError: LocalizedError, Equatable {
    /// Export of this kind of model to this format does not exist yet.
    case notImplemented(path: String, task: String, format: ExportFormat)

    /// A message naming the file and what is missing.
    public var errorDescription: String? {
        switch self {
        case let .notImplemented(path, task, format):
            return "\(path): export of '\(task)' models to \(format.displayName) is not implemented; image classifiers, "
                + "object detectors, action and hand-action classifiers and hand-pose classifiers export, to Core ML and ONNX"
        }
    }
}
