import CoachModels
import Foundation
import TestSupport
import XCTest

/// The fault campaign's kill -9, kept in the suite (issue 14): `coach train action-classifier` is
/// killed at several moments of a run; each time the model already at `--output` is either the
/// previous one or the finished new one (never damaged), no temporary file stays behind once a
/// run completes, and `--resume` — or a fresh run when the kill came before the first checkpoint,
/// which `--resume` refuses with a message — ends with the bytes of an uninterrupted run.
final class KillDuringTrainingTests: XCTestCase {
    /// Three made-up gestures of two joints (circles both ways and a wave), 14 clips each.
    static func writeTable(to url: URL) throws {
        var rows = ["sequence,label,time,hand_x,hand_y,elbow_x,elbow_y"]
        var generator = SeededGenerator(seed: 4)
        var sequence = 0
        for label in ["clockwise", "counter", "wave"] {
            for _ in 0..<14 {
                sequence += 1
                let speed = Double.random(in: 0.8...1.2, using: &generator), phase = Double.random(in: 0...6.28, using: &generator)
                for frame in 0..<40 {
                    let t = Double(frame) / 30, angle = phase + speed * 6 * t * (label == "counter" ? -1 : 1)
                    let (x, y) = label == "wave" ? (0.5 + 0.2 * sin(angle), 0.4) : (0.5 + 0.2 * cos(angle), 0.5 + 0.2 * sin(angle))
                    let noise = { Double.random(in: -0.01...0.01, using: &generator) }
                    rows.append("\(sequence),\(label),\(t),\(x + noise()),\(y + noise()),\(0.5 + noise()),\(0.8 + noise())")
                }
            }
        }
        try Data((rows.joined(separator: "\n") + "\n").utf8).write(to: url)
    }

    func testKilledRunsLeaveThePreviousModelAndResumeToTheSameBytes() throws {
        let folder = try temporaryDirectory(self)
        let table = folder.appendingPathComponent("gestures.csv")
        try Self.writeTable(to: table)
        // One ensemble member (a run takes 4 s here instead of 9): what a kill can damage is the file
        // at --output and the checkpoint, written the same way by every member; a resume inside the
        // second member is ActionClassifierTrainerTests' testAnEnsembleInterruptedInItsSecondMember….
        func arguments(_ output: URL, seed: Int = 1) -> [String] {
            ["train", "action-classifier", "--data", table.path, "--output", output.path, "--prediction-window", "16",
             "--max-iterations", "40", "--patience", "40", "--random-convolution-features", "2000", "--ensemble", "1",
             "--seed", "\(seed)", "--quiet"]
        }
        // Every run writes a model.h5 in a folder of its own (the file name is recorded in the model).
        func modelURL(_ name: String) throws -> URL {
            let runFolder = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: runFolder, withIntermediateDirectories: true)
            return runFolder.appendingPathComponent("model.h5")
        }
        // The reference: an uninterrupted run, and how long it takes.
        let reference = try modelURL("reference")
        let started = Date()
        let uninterrupted = try CoachExecutable.run(arguments(reference))
        XCTAssertEqual(uninterrupted.exitCode, 0, uninterrupted.standardError)
        let duration = Date().timeIntervalSince(started)
        let expected = try Data(contentsOf: reference)
        // The previous model at the output path: another seed, so other bytes.
        let previousURL = try modelURL("previous")
        XCTAssertEqual(try CoachExecutable.run(arguments(previousURL, seed: 2)).exitCode, 0)
        let previous = try Data(contentsOf: previousURL)
        XCTAssertNotEqual(previous, expected)

        for fraction in [0.02, 0.15, 0.4, 0.65, 0.9, 0.99] {
            let output = try modelURL("killed-at-\(Int(fraction * 100))")
            try previous.write(to: output)
            let process = Process()
            process.executableURL = try CoachExecutable.location()
            process.arguments = arguments(output)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: duration * fraction)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let killed = process.terminationReason == .uncaughtSignal
            let afterKill = try Data(contentsOf: output)
            XCTAssertTrue(afterKill == previous || afterKill == expected,
                          "killed at \(fraction) of the run: the output is neither the previous model nor the finished one")
            XCTAssertNoThrow(try ModelFile.read(from: output), "killed at \(fraction): the output must stay a readable model")

            let checkpoint = output.deletingPathExtension().appendingPathExtension("checkpoint.h5")   // OUTPUT.checkpoint.h5
            let hadCheckpoint = FileManager.default.fileExists(atPath: checkpoint.path)
            var resumed = try CoachExecutable.run(arguments(output) + ["--resume"])
            if !hadCheckpoint {
                // Killed before the first checkpoint (or after the run finished): nothing to resume.
                XCTAssertNotEqual(resumed.exitCode, 0, "killed at \(fraction) with no checkpoint: --resume must refuse")
                XCTAssertTrue(resumed.standardError.contains("no checkpoint"), resumed.standardError)
                resumed = try CoachExecutable.run(arguments(output))
            }
            XCTAssertEqual(resumed.exitCode, 0, "killed at \(fraction) (process killed: \(killed)): \(resumed.standardError)")
            XCTAssertEqual(try Data(contentsOf: output), expected, "killed at \(fraction): the resumed run must give the uninterrupted bytes")
            XCTAssertFalse(FileManager.default.fileExists(atPath: checkpoint.path), "a finished run removes its checkpoint")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: output.deletingLastPathComponent().path)
                .filter { $0.contains(".tmp-") }
            XCTAssertEqual(leftovers, [], "killed at \(fraction): temporaries left behind")
            print("killed at \(fraction) of \(String(format: "%.1f", duration)) s: process killed \(killed), checkpoint \(hadCheckpoint)")
        }
    }
}
