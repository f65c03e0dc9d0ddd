import Foundation

/// Why a TensorFlow Lite model could not be read or imported; every message names the file.
public enum TFLiteError: LocalizedError, Equatable, Sendable {
    /// No file at `path`.
    case fileNotFound(path: String)
    /// The file exists but cannot be read.
    case unreadable(path: String, reason: String)
    /// Not a TFLite flatbuffer at all (no `TFL3` identifier, too short).
    case notTFLite(path: String, reason: String)
    /// The flatbuffer is inconsistent: `what` points outside the file or has an impossible value.
    case malformed(path: String, what: String)
    /// Operators Coach does not implement (builtin names or custom codes), each with where it is used.
    case unsupportedOperators(path: String, operators: [String])
    /// A construct of a supported operator Coach does not implement (dilation, depth multiplier, …).
    case unsupported(path: String, problems: [String])

    /// A sentence naming the file, the problem and what to do about it.
    public var errorDescription: String? {
        switch self {
        case .fileNotFound(let path):
            return "TFLite model '\(path)' does not exist; `make build` extracts MediaPipe's models into .cache/mediapipe/"
        case .unreadable(let path, let reason):
            return "TFLite model '\(path)' cannot be read: \(reason)"
        case .notTFLite(let path, let reason):
            return "'\(path)' is not a TensorFlow Lite model: \(reason)"
        case .malformed(let path, let what):
            return "TFLite model '\(path)' is damaged: \(what); download or extract it again"
        case .unsupportedOperators(let path, let operators):
            return "TFLite model '\(path)' uses operator\(operators.count == 1 ? "" : "s") Coach does not implement:\n"
                + operators.map { "  - \($0)" }.joined(separator: "\n")
        case .unsupported(let path, let problems):
            return "TFLite model '\(path)' cannot be imported (\(problems.count) problem\(problems.count == 1 ? "" : "s")):\n"
                + problems.map { "  - \($0)" }.joined(separator: "\n")
        }
    }
}
