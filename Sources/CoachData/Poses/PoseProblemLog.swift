import Foundation

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
