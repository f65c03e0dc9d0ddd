import Foundation

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
