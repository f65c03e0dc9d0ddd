import Foundation
import TestSupport
import XCTest

/// `coach --help` is part of the documentation (house rule 10): its text is compared with the
/// snapshots in `Tests/coachTests/Snapshots`, so a change to it is a visible change to a file in
/// review. To accept new help text, run the tests with `COACH_UPDATE_SNAPSHOTS=1`.
final class HelpSnapshotTests: XCTestCase {
    func testRootHelpMatchesItsSnapshot() throws {
        try assertSnapshot(of: ["--help"], named: "coach-help.txt")
    }

    func testTrainHelpMatchesItsSnapshot() throws {
        try assertSnapshot(of: ["train", "--help"], named: "coach-train-help.txt")
    }

    func testHelpFitsEightyColumns() throws {
        for arguments in [["--help"], ["train", "--help"]] {
            let result = try CoachExecutable.run(arguments, environment: ["COLUMNS": "80"])
            for line in result.standardOutput.split(separator: "\n") {
                XCTAssertLessThanOrEqual(line.count, 80, "coach \(arguments.joined(separator: " ")): \(line)")
            }
        }
    }

    private func assertSnapshot(of arguments: [String], named name: String,
                                file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try CoachExecutable.run(arguments, environment: ["COLUMNS": "80"])
        XCTAssertEqual(result.exitCode, 0, result.standardError, file: file, line: line)
        let snapshot = SharedData.repositoryRoot.appendingPathComponent("Tests/coachTests/Snapshots/\(name)")
        if ProcessInfo.processInfo.environment["COACH_UPDATE_SNAPSHOTS"] == "1" {
            try Data(result.standardOutput.utf8).write(to: snapshot, options: .atomic)
            return
        }
        let expected = try String(contentsOf: snapshot, encoding: .utf8)
        XCTAssertEqual(result.standardOutput, expected,
                       "coach \(arguments.joined(separator: " ")) differs from \(snapshot.path); if the change is intended, run the tests with COACH_UPDATE_SNAPSHOTS=1 and review the diff",
                       file: file, line: line)
    }
}
