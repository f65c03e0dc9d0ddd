import CoachModels
import Foundation
import TestSupport
import XCTest

/// Commands never write their model over their own data or other files (issue 14's data loss).
final class OutputGuardTests: XCTestCase {
    /// `--output` naming the training data is refused and the data is untouched; `--overwrite`
    /// would be needed. A folder as output is refused even with `--overwrite`.
    func testTrainingRefusesToOverwriteItsData() throws {
        let folder = try temporaryDirectory(self)
        let table = folder.appendingPathComponent("poses.csv")
        let text = "label,wrist_x,wrist_y\nopen,0.1,0.2\nfist,0.3,0.4\n"
        try Data(text.utf8).write(to: table)
        let result = try CoachExecutable.run(["train", "hand-pose-classifier", "--data", table.path, "--output", table.path, "--quiet"])
        XCTAssertNotEqual(result.exitCode, 0)
        XCTAssertTrue(result.standardError.contains("is not a Coach model") && result.standardError.contains("--overwrite"), result.standardError)
        XCTAssertEqual(try String(contentsOf: table, encoding: .utf8), text)

        let directory = folder.appendingPathComponent("out.h5")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let second = try CoachExecutable.run(["train", "hand-pose-classifier", "--data", table.path, "--output", directory.path, "--overwrite", "--quiet"])
        XCTAssertNotEqual(second.exitCode, 0)
        XCTAssertTrue(second.standardError.contains("not a regular file"), second.standardError)
    }

    /// The model writer replaces only regular files, and clears temporaries that an interrupted
    /// write of the same file left (their process is gone) while keeping a live writer's.
    func testModelWriterRefusesDevicesAndClearsStaleTemporaries() throws {
        let folder = try temporaryDirectory(self)
        let file = ModelFile(metadata: ModelMetadata(task: "graph-test"))
        XCTAssertThrowsError(try file.write(to: URL(fileURLWithPath: "/dev/null"))) { error in
            XCTAssertTrue(((error as? LocalizedError)?.errorDescription ?? "").contains("not a regular file"), "\(error)")
        }
        let target = folder.appendingPathComponent("m.h5")
        let stale = folder.appendingPathComponent("m.h5.tmp-2147483000-AAAA"), live = folder.appendingPathComponent("m.h5.tmp-\(getpid())-BBBB")
        try Data("partial".utf8).write(to: stale)
        try Data("in progress".utf8).write(to: live)
        try file.write(to: target)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale.path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: live.path))
        XCTAssertEqual(try ModelFile.read(from: target).metadata.task, "graph-test")
    }
}

/// Thresholds outside 0…1 (2, NaN) are refused, not silently used.
final class ThresholdValidationTests: XCTestCase {
    func testPredictThresholdsAreProbabilities() throws {
        for arguments in [["--confidence-threshold", "2"], ["--confidence-threshold", "nan"], ["--iou-threshold", "2"], ["--iou-threshold", "nan"]] {
            let result = try CoachExecutable.run(["predict", "model.h5", "image.jpg"] + arguments)
            XCTAssertNotEqual(result.exitCode, 0, "\(arguments)")
            XCTAssertTrue(result.standardError.contains("must be a number in 0…1"), result.standardError)
        }
    }
}
