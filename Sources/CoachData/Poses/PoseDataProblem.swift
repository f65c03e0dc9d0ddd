import Foundation

/// One problem found in pose data: where it is (file, and a line or JSON path) and what was expected.
public struct PoseDataProblem: Hashable, Sendable, CustomStringConvertible {
    /// The path of the file the problem is in.
    public var file: String
    /// The 1-based line in a CSV file, when the problem has one.
    public var line: Int?
    /// The JSON path (`frames[3].keypoints[5]`) in a JSON file, when the problem has one.
    public var jsonPath: String?
    /// What is wrong and what was expected.
    public var message: String

    /// A problem at `file`, optionally at a `line` or `jsonPath`.
    public init(file: String, line: Int? = nil, jsonPath: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.jsonPath = jsonPath
        self.message = message
    }

    /// `file:line: message`, `file: path: message` or `file: message`.
    public var description: String {
        if let line { return "\(file):\(line): \(message)" }
        if let jsonPath, !jsonPath.isEmpty { return "\(file): \(jsonPath): \(message)" }
        return "\(file): \(message)"
    }
}
