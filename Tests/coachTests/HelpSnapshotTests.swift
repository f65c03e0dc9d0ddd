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

    /// Every command's own text (the overview and examples above USAGE), as written: lines that
    /// keep their layout (indented examples and tables) fit an 80-column terminal (79 characters:
    /// the argument parser breaks a line of 80 there), where the parser would otherwise break them
    /// with no indent (and a wrapped command line no longer pastes); and a longer line is a whole
    /// paragraph, which the parser wraps cleanly, not one line of a ragged paragraph whose other
    /// lines were broken by hand.
    func testEveryCommandsOwnTextKeepsItsLayoutInEightyColumns() throws {
        var commands: [[String]] = [[]], index = 0, problems: [String] = []
        while index < commands.count {
            let command = commands[index]
            index += 1
            // Wide enough that the parser wraps nothing: the text as written.
            let result = try CoachExecutable.run(command + ["--help"], environment: ["COLUMNS": "100000"])
            XCTAssertEqual(result.exitCode, 0, "coach \(command.joined(separator: " ")) --help: \(result.standardError)")
            let lines = result.standardOutput.components(separatedBy: "\n")
            let name = (["coach"] + command).joined(separator: " ")
            let own = lines.prefix { !$0.hasPrefix("USAGE:") }
            for (position, line) in own.enumerated() where line.count > 79 {
                let next = position + 1 < own.count ? own[own.startIndex + position + 1] : ""
                let previous = position > 0 ? own[own.startIndex + position - 1] : ""
                if line.hasPrefix(" ") {
                    problems.append("\(name): an indented line of \(line.count) characters: \(line)")
                } else if (!next.isEmpty && !next.hasPrefix(" "))
                            || (!previous.isEmpty && !previous.hasPrefix(" ") && !previous.hasSuffix(":")) {
                    problems.append("\(name): a long line in a paragraph broken by hand (rewrap it within 80 columns, or join its lines with \\): \(line)")
                }
            }
            // Subcommands: the names listed under SUBCOMMANDS (help itself aside).
            var listing = false
            for line in lines {
                if line.hasPrefix("SUBCOMMANDS:") { listing = true; continue }
                guard listing else { continue }
                if line.isEmpty { listing = false; continue }
                let word = line.dropFirst(2).prefix { $0 != " " }
                if line.hasPrefix("  "), !line.hasPrefix("   "), word.first?.isLowercase == true, word != "help" {
                    commands.append(command + [String(word)])
                }
            }
        }
        XCTAssertGreaterThan(commands.count, 10, "the subcommands were not found in the help")
        XCTAssertTrue(problems.isEmpty, problems.joined(separator: "\n"))
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
