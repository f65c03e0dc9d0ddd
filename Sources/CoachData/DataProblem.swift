import Foundation

/// One problem found in a data file: the file, where in it (a 1-based line, or a JSON path such
/// as `$[3].annotations[0].coordinates.width` or `frames[3].keypoints[5]`) and what was expected.
/// Readers collect every problem of a dataset and throw them together.
public struct DataProblem: Hashable, Sendable, CustomStringConvertible {
    /// The path of the file the problem is in.
    public var file: String
    /// The 1-based line (CSV, YOLO text, XML, or a JSON syntax error), when known.
    public var line: Int?
    /// The JSON path, when the problem has one.
    public var jsonPath: String?
    /// What is wrong and what was expected.
    public var message: String

    /// A problem in `file`, optionally at a `line` or `jsonPath`.
    public init(file: String, line: Int? = nil, jsonPath: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.jsonPath = jsonPath
        self.message = message
    }

    /// `file:line: message`, `file: $.path: message` or `file: message`.
    public var description: String {
        if let line { return "\(file):\(line): \(message)" }
        if let jsonPath, !jsonPath.isEmpty { return "\(file): \(jsonPath): \(message)" }
        return "\(file): \(message)"
    }

    /// "N problems in `subject`:", then one problem per line (at most `limit`), then how many
    /// more there are: the description of an error that carries `problems`.
    public static func listing(_ problems: [DataProblem], in subject: String, limit: Int) -> String {
        let count = problems.count
        var lines = [count == 1 ? "1 problem in \(subject):" : "\(count) problems in \(subject):"]
        for problem in problems.prefix(limit) { lines.append("  " + problem.description) }
        if count > limit {
            let rest = count - limit
            lines.append("  … and \(rest) more problem\(rest == 1 ? "" : "s") not shown")
        }
        return lines.joined(separator: "\n")
    }
}

/// A problem in pose data (see `DataProblem`).
public typealias PoseDataProblem = DataProblem

/// A problem in object-detection annotations or their images (see `DataProblem`).
public typealias DetectionDataProblem = DataProblem
