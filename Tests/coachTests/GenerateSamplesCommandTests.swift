import CoachData
import Foundation
import TestSupport
import XCTest

/// `coach generate-samples` writes readable, seeded datasets.
final class GenerateSamplesCommandTests: XCTestCase {
    func testWritesReadableDatasetsDeterministically() throws {
        let dir = try temporaryDirectory(self)
        let a = dir.appendingPathComponent("a"), b = dir.appendingPathComponent("b")
        for out in [a, b] {
            let r = try CoachExecutable.run(["generate-samples", "--only", "throws", "hand-poses", "--seed", "3", "--output", out.path])
            XCTAssertEqual(r.exitCode, 0, r.standardError)
        }
        let annotations = a.appendingPathComponent("throws/train/annotations.csv")
        XCTAssertEqual(try Data(contentsOf: annotations), try Data(contentsOf: b.appendingPathComponent("throws/train/annotations.csv")))
        // The project's own readers accept what the generator wrote.
        let dataset = try PoseDataset.load(annotations, options: PoseReadingOptions())
        XCTAssertEqual(Set(dataset.labels), ["none", "overhand", "underhand", "underleg"])
        XCTAssertEqual(dataset.backgroundLabel, "none")
        let hands = try SinglePoseSet.read(a.appendingPathComponent("hand-poses/train.csv"), options: PoseReadingOptions())
        XCTAssertEqual(hands.jointSet.kind, .hand21)
        XCTAssertGreaterThan(hands.poses.count, 0)
    }

    /// Data inside a sample set whose generation was interrupted (its marker still says "being
    /// written") is refused by train and evaluate, naming the marker; a finished set is not
    /// (issue 14: a killed generate-samples left half the photos, and training went ahead).
    func testAnInterruptedSampleSetIsRefused() throws {
        let root = try temporaryDirectory(self).appendingPathComponent("sports-gear")
        let photos = root.appendingPathComponent("train/ball")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try RGBImage(width: 32, height: 32, color: .white).writePNG(to: photos.appendingPathComponent("ball-0000.png"))
        let marker = root.appendingPathComponent(".coach-generated")
        try Data("being written by coach generate-samples --seed 1 (incomplete until this line changes)\n".utf8).write(to: marker)
        let actions = root.appendingPathComponent("train/annotations.csv")
        try Data("file,label\nclip.csv,wave\n".utf8).write(to: actions)
        let output = root.deletingLastPathComponent().appendingPathComponent("out.h5").path
        let commands: [[String]] = [
            ["train", "image-classifier", "--data", root.appendingPathComponent("train").path, "--output", output],
            ["train", "action-classifier", "--annotations", actions.path, "--output", output],
            ["train", "hand-pose-classifier", "--data", root.appendingPathComponent("train").path, "--output", output],
            ["evaluate", "model.h5", "--data", photos.path],
        ]
        for arguments in commands {
            let result = try CoachExecutable.run(arguments)
            XCTAssertNotEqual(result.exitCode, 0, "\(arguments)")
            XCTAssertTrue(result.standardError.contains("generate-samples did not finish") && result.standardError.contains(marker.path),
                          "\(arguments): \(result.standardError)")
        }
        // Finished: the same command gets past the check (and fails later, on this tiny set, for another reason).
        try Data("written by coach generate-samples --seed 1\n".utf8).write(to: marker)
        let finished = try CoachExecutable.run(commands[0])
        XCTAssertFalse(finished.standardError.contains("did not finish"), finished.standardError)
    }
}
