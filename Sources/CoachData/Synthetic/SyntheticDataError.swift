import Foundation

/// Why a synthetic dataset could not be generated or written.
public enum SyntheticDataError: LocalizedError, Equatable {
    /// The configuration or request is inconsistent; every problem found is listed.
    case invalidConfiguration(problems: [String])
    /// A file or folder could not be written.
    case cannotWrite(path: String, reason: String)

    /// A message naming what is wrong and what to do.
    public var errorDescription: String? {
        switch self {
        case .invalidConfiguration(let problems):
            return "invalid synthetic-data configuration (\(problems.count) problem\(problems.count == 1 ? "" : "s")):\n"
                + problems.map { "  - \($0)" }.joined(separator: "\n")
        case .cannotWrite(let path, let reason):
            return "cannot write '\(path)': \(reason); check that the folder is writable and the disk is not full"
        }
    }
}
