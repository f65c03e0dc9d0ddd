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
}
