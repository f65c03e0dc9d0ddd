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

/// Every problem found while reading pose data, thrown once after a whole file or dataset was checked.
public struct PoseDataError: LocalizedError, Sendable {
    /// How many problems `errorDescription` lists before summarising the rest as a count.
    public static let defaultPrintedProblemLimit = 20

    /// The problems, in the order they were found.
    public let problems: [PoseDataProblem]
    /// How many problems `errorDescription` lists.
    public var printedProblemLimit: Int

    /// An error carrying `problems`; `errorDescription` lists at most `printedProblemLimit` of them.
    public init(problems: [PoseDataProblem], printedProblemLimit: Int = PoseDataError.defaultPrintedProblemLimit) {
        self.problems = problems
        self.printedProblemLimit = max(1, printedProblemLimit)
    }

    /// A count, then one problem per line (capped), then how many more there are.
    public var errorDescription: String? {
        let count = problems.count
        var lines = [count == 1 ? "1 problem in pose data:" : "\(count) problems in pose data:"]
        for problem in problems.prefix(printedProblemLimit) { lines.append("  " + problem.description) }
        if count > printedProblemLimit {
            let rest = count - printedProblemLimit
            lines.append("  … and \(rest) more problem\(rest == 1 ? "" : "s") not shown")
        }
        return lines.joined(separator: "\n")
    }
}

/// Collects problems while reading so that all of them are reported at once.
struct PoseProblemLog {
    /// Problems kept in memory; beyond this only a count is kept (a garbage file must not exhaust memory).
    static let storedLimit = 100_000

    private(set) var problems: [PoseDataProblem] = []
    private(set) var droppedCount = 0

    var isEmpty: Bool { problems.isEmpty }
    var count: Int { problems.count + droppedCount }

    mutating func add(_ problem: PoseDataProblem) {
        if problems.count < Self.storedLimit { problems.append(problem) } else { droppedCount += 1 }
    }

    mutating func add(_ file: URL, line: Int? = nil, _ message: String) {
        add(PoseDataProblem(file: file.path, line: line, message: message))
    }

    mutating func add(_ file: URL, jsonPath: String, _ message: String) {
        add(PoseDataProblem(file: file.path, jsonPath: jsonPath, message: message))
    }

    mutating func append(contentsOf other: PoseProblemLog) {
        for problem in other.problems { add(problem) }
        droppedCount += other.droppedCount
    }

    /// Throws a `PoseDataError` listing every problem, when there is any.
    func throwIfAny() throws {
        guard !isEmpty else { return }
        var all = problems
        if droppedCount > 0 {
            all.append(PoseDataProblem(file: problems.last?.file ?? "", message: "\(droppedCount) further problems were not kept"))
        }
        throw PoseDataError(problems: all)
    }
}
