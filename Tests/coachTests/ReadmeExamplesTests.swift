import Foundation
import TestSupport
import XCTest

/// The README's shell examples must stay true to the CLI (house rule 10): every
/// `.build/release/coach …` line in a ```sh block names a real command, and every `--option`
/// it uses is one that command's help documents. (Running them all means training models, which
/// `make demo` does; this keeps option names from drifting between the two.)
final class ReadmeExamplesTests: XCTestCase {
    /// A README command: the subcommand path (`["train", "object-detector"]`) and its options.
    struct Example {
        var line: String
        var path: [String]
        var options: [String]
    }

    static func examples(inReadme text: String) -> [Example] {
        var result: [Example] = []
        var inShell = false
        var pending = ""
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(rawLine)
            if line.hasPrefix("```") {
                inShell = !inShell && line.hasPrefix("```sh")
                pending = ""
                continue
            }
            guard inShell else { continue }
            let code = line.components(separatedBy: " #").first ?? line   // drop trailing comments
            if code.hasSuffix("\\") {
                pending += code.dropLast() + " "
                continue
            }
            let command = pending + code
            pending = ""
            guard let range = command.range(of: ".build/release/coach ") else { continue }
            let words = command[range.upperBound...].split(separator: " ").map(String.init)
            var path: [String] = []
            for word in words {
                guard !word.hasPrefix("-") else { break }
                path.append(word)
                if path.first != "train" || path.count == 2 { break }
            }
            let options = words.filter { $0.hasPrefix("--") }.map { String($0.split(separator: "=")[0]) }
            result.append(Example(line: command.trimmingCharacters(in: .whitespaces), path: path, options: options))
        }
        return result
    }

    func testTheParserFindsCommandsAcrossContinuationLines() {
        let text = """
        ```sh
        .build/release/coach train object-detector --annotations a.json \\
            --output b.h5 --seed 1   # a comment --not-an-option
        make demo
        ```
        .build/release/coach outside --a-block
        """
        let examples = Self.examples(inReadme: text)
        XCTAssertEqual(examples.map(\.path), [["train", "object-detector"]])
        XCTAssertEqual(examples.first?.options, ["--annotations", "--output", "--seed"])
    }

    func testEveryReadmeCommandAndOptionExists() throws {
        let readme = SharedData.repositoryRoot.appendingPathComponent("README.md")
        let examples = Self.examples(inReadme: try String(contentsOf: readme, encoding: .utf8))
        XCTAssertGreaterThanOrEqual(examples.count, 20, "the README's coach examples were not found")
        var helps: [[String]: String] = [:]
        for example in examples {
            if helps[example.path] == nil {
                let result = try CoachExecutable.run(example.path + ["--help"])
                XCTAssertEqual(result.exitCode, 0, "README: \(example.line)\n\(result.standardError)")
                helps[example.path] = result.standardOutput
            }
            let help = helps[example.path] ?? ""
            XCTAssertTrue(help.contains("USAGE: coach \(example.path.joined(separator: " "))"),
                          "README names a command coach does not have: \(example.line)")
            for option in example.options where option != "--help" {
                XCTAssertTrue(help.contains(option), "README uses \(option), which `coach \(example.path.joined(separator: " ")) --help` does not document: \(example.line)")
            }
        }
    }
}
