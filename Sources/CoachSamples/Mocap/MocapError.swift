import Foundation

/// Why a motion-capture file or folder could not be read; every message names the file and,
/// where it applies, the line and column, and says what to do.
public enum MocapError: LocalizedError, Equatable {
    /// The file or folder could not be read.
    case unreadable(path: String, reason: String)
    /// The header lacks a joint column the generator needs.
    case missingColumn(path: String, column: String)
    /// A row has fewer or more cells than the header (a truncated or damaged file).
    case wrongCellCount(path: String, line: Int, expected: Int, found: Int)
    /// A cell is not a finite number.
    case badNumber(path: String, line: Int, column: String, text: String)
    /// The file has no frames.
    case empty(path: String)
    /// The folder has no motion files.
    case noMotions(path: String)

    /// A message naming the file, the place and what to do.
    public var errorDescription: String? {
        switch self {
        case .unreadable(let path, let reason):
            return "cannot read motion capture '\(path)': \(reason); run from the Coach checkout, which ships datasets/mocap-motions, or pass its folder (coach generate-samples --motion-capture <folder>)"
        case .missingColumn(let path, let column):
            return "\(path): header has no column '\(column)'; motion files need <joint>_x,<joint>_y,<joint>_z for the 15 joints listed in datasets/mocap-motions/README.md"
        case .wrongCellCount(let path, let line, let expected, let found):
            return "\(path):\(line): \(found) cells where the header has \(expected); the file is truncated or damaged — restore it from the repository"
        case .badNumber(let path, let line, let column, let text):
            return "\(path):\(line): column '\(column)' holds '\(text)', not a finite number; fix or remove that row"
        case .empty(let path):
            return "\(path): no frames after the header; remove the file or restore it"
        case .noMotions(let path):
            return "'\(path)' holds no motion files (csv/<trial>.csv); point the generator at the checkout's datasets/mocap-motions (coach generate-samples --motion-capture <folder>)"
        }
    }
}
