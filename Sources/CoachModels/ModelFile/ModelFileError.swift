import Foundation

/// Why a model file could not be read, checked or written; every message names the file
/// and says what to do.
public enum ModelFileError: LocalizedError, Equatable, Sendable {
    /// No file at `path`.
    case fileNotFound(path: String)
    /// The file exists but cannot be opened or read (permissions, a directory, I/O error).
    case unreadable(path: String, reason: String)
    /// The file is not HDF5 at all; `looksLike` names what it seems to be, when known.
    case notHDF5(path: String, looksLike: String?)
    /// The file is HDF5 but shorter than its own header says (an interrupted copy or download).
    case truncated(path: String, detail: String)
    /// HDF5 could not read the file's structure.
    case damaged(path: String, detail: String)
    /// A valid HDF5 file that is not a Coach model (missing or different `format`).
    case notACoachModel(path: String, reason: String)
    /// A Coach model written in a newer format version than this Coach understands.
    case unsupportedFormatVersion(path: String, found: Int, supported: Int)
    /// The metadata JSON is invalid at `jsonPath` (`path` is nil for in-memory metadata).
    case malformedMetadata(path: String?, jsonPath: String, reason: String)
    /// A dataset in `/weights` is not a float32 tensor.
    case invalidTensor(path: String?, name: String, reason: String)
    /// The weights do not match what the model expects; lists every mismatch.
    case tensorMismatch(path: String?, mismatches: [TensorMismatch])
    /// Tensor names that cannot be stored (empty, containing `/`, or `.`).
    case invalidTensorNames(names: [String])
    /// The metadata could not be turned into JSON.
    case metadataNotEncodable(reason: String)
    /// Writing failed; the previous file at `path` (if any) is unchanged.
    case writeFailed(path: String, reason: String)

    /// A sentence naming the file, the problem and what to do about it.
    public var errorDescription: String? {
        switch self {
        case .fileNotFound(let path):
            let name = URL(fileURLWithPath: path).lastPathComponent
            let hint = name == "efficientnet-lite0.h5" ? " (`make weights` imports the backbone)"
                : URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent == "pose" ? " (`make pose-models` imports the pose models)" : ""
            return "model file '\(path)' does not exist; check the path\(hint)"
        case .unreadable(let path, let reason):
            return "model file '\(path)' cannot be read: \(reason)"
        case .notHDF5(let path, let looksLike):
            let kind = looksLike.map { " (it looks like \($0))" } ?? ""
            return "'\(path)' is not an HDF5 model file\(kind); pass a .h5 file written by Coach"
        case .truncated(let path, let detail):
            return "model file '\(path)' is truncated (\(detail)); it was probably cut off while being copied "
                + "or written — copy or re-create it"
        case .damaged(let path, let detail):
            return "model file '\(path)' is damaged: \(detail); re-create or re-copy it"
        case .notACoachModel(let path, let reason):
            return "'\(path)' is an HDF5 file but not a Coach model: \(reason); "
                + "expected the root attribute format = \"\(ModelFile.formatName)\""
        case .unsupportedFormatVersion(let path, let found, let supported):
            return "model file '\(path)' has format version \(found), but this Coach reads versions up to "
                + "\(supported); upgrade Coach to load it"
        case .malformedMetadata(let path, let jsonPath, let reason):
            let file = path.map { "model file '\($0)'" } ?? "model metadata"
            return "\(file): metadata at \(jsonPath): \(reason)"
        case .invalidTensor(let path, let name, let reason):
            let file = path.map { "model file '\($0)'" } ?? "model"
            return "\(file): tensor '\(name)' \(reason)"
        case .tensorMismatch(let path, let mismatches):
            let file = path.map { "model file '\($0)'" } ?? "model"
            let list = mismatches.map { "  - \($0)" }.joined(separator: "\n")
            return "\(file) does not have the weights this model expects "
                + "(\(mismatches.count) problem\(mismatches.count == 1 ? "" : "s")):\n\(list)\n"
                + "The file was written for a different architecture or configuration; re-train or re-import it."
        case .invalidTensorNames(let names):
            let list = names.map { "'\($0)'" }.joined(separator: ", ")
            return "cannot store tensors named \(list): names must be non-empty, must not contain '/' "
                + "and must not be '.'; use dotted names such as 'blocks.3.depthwise.conv.weight'"
        case .metadataNotEncodable(let reason):
            return "model metadata cannot be written as JSON: \(reason)"
        case .writeFailed(let path, let reason):
            return "could not write model file '\(path)': \(reason); any previous file there is unchanged"
        }
    }
}

/// One way a model file's weights differ from what a model expects.
public struct TensorMismatch: Equatable, Sendable, CustomStringConvertible {
    /// The kinds of difference.
    public enum Kind: Equatable, Sendable {
        /// The model needs the tensor but the file lacks it.
        case missing(expectedShape: [Int])
        /// Both have it, with different shapes.
        case wrongShape(expected: [Int], actual: [Int])
        /// The file has a tensor the model does not use.
        case unexpected(actualShape: [Int])
    }

    /// The stable dotted parameter name.
    public var name: String
    /// How it differs.
    public var kind: Kind

    /// A mismatch of `kind` for tensor `name`.
    public init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }

    /// E.g. "tensor 'classifier.bias' has shape [10], expected [1000]".
    public var description: String {
        switch kind {
        case .missing(let expected):
            return "missing tensor '\(name)' (expected shape \(expected))"
        case .wrongShape(let expected, let actual):
            return "tensor '\(name)' has shape \(actual), expected \(expected)"
        case .unexpected(let actual):
            return "unexpected tensor '\(name)' of shape \(actual)"
        }
    }
}
