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
        DataProblem.listing(problems, in: "pose data", limit: printedProblemLimit)
    }
}
