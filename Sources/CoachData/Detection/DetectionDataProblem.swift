import Foundation

/// One problem found in object-detection annotations: the file, where in it (a line or a
/// JSON path such as `$[3].annotations[0].coordinates.width`) and what was expected.
public struct DetectionDataProblem: Hashable, Sendable, CustomStringConvertible {
    /// The path of the file the problem is in (the annotation file, or an image).
    public var file: String
    /// The 1-based line (YOLO text, Pascal VOC XML, or a JSON syntax error), when known.
    public var line: Int?
    /// The JSON path in a Create ML annotation file, when the problem has one.
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
}

/// Every problem found while reading detection annotations, thrown once after the whole
/// dataset was checked.
public struct DetectionDataError: LocalizedError, Sendable {
    /// How many problems `errorDescription` lists before summarising the rest as a count.
    public static let printedProblemLimit = 25

    /// The problems, in the order they were found.
    public let problems: [DetectionDataProblem]

    /// An error carrying `problems`.
    public init(problems: [DetectionDataProblem]) {
        self.problems = problems
    }

    /// A count, then one problem per line (capped), then how many more there are.
    public var errorDescription: String? {
        let count = problems.count
        var lines = [count == 1 ? "1 problem in the detection annotations:" : "\(count) problems in the detection annotations:"]
        for problem in problems.prefix(Self.printedProblemLimit) { lines.append("  " + problem.description) }
        if count > Self.printedProblemLimit {
            let rest = count - Self.printedProblemLimit
            lines.append("  … and \(rest) more problem\(rest == 1 ? "" : "s") not shown")
        }
        return lines.joined(separator: "\n")
    }
}

/// Collects problems and warnings while reading so all of them are reported at once.
struct DetectionProblemLog {
    /// Problems kept in memory; beyond this only a count is kept.
    static let storedLimit = 10_000

    private(set) var problems: [DetectionDataProblem] = []
    private(set) var warnings: [DetectionDataProblem] = []
    private(set) var droppedCount = 0

    var isEmpty: Bool { problems.isEmpty && droppedCount == 0 }

    mutating func add(_ problem: DetectionDataProblem) {
        if problems.count < Self.storedLimit { problems.append(problem) } else { droppedCount += 1 }
    }

    mutating func add(_ file: String, line: Int? = nil, jsonPath: String? = nil, _ message: String) {
        add(DetectionDataProblem(file: file, line: line, jsonPath: jsonPath, message: message))
    }

    mutating func warn(_ file: String, line: Int? = nil, jsonPath: String? = nil, _ message: String) {
        if warnings.count < Self.storedLimit {
            warnings.append(DetectionDataProblem(file: file, line: line, jsonPath: jsonPath, message: message))
        }
    }

    /// Throws a `DetectionDataError` listing every problem, when there is any.
    func throwIfAny() throws {
        guard !isEmpty else { return }
        var all = problems
        if droppedCount > 0 {
            all.append(DetectionDataProblem(file: problems.last?.file ?? "", message: "\(droppedCount) further problems were not kept"))
        }
        throw DetectionDataError(problems: all)
    }
}
