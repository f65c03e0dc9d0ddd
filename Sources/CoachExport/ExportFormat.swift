import Foundation

/// A file format a Coach model can be exported to.
public enum ExportFormat: String, CaseIterable, Sendable {
    /// Apple's Core ML (`.mlmodel`, NeuralNetwork specification).
    case coreml
    /// ONNX (`.onnx`, opset 13, IR 7).
    case onnx

    /// The format's usual name in messages.
    public var displayName: String {
        switch self {
        case .coreml: return "Core ML"
        case .onnx: return "ONNX"
        }
    }
}
