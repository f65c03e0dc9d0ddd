import Foundation

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
        DataProblem.listing(problems, in: "the detection annotations", limit: Self.printedProblemLimit)
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
