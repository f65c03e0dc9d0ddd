import CoachModels
import Foundation
import TestSupport
import XCTest

final class ImportBackboneCommandTests: XCTestCase {
    /// The real checkpoint: `$COACH_BACKBONE_PTH`, or `<repository>/.cache/efficientnet-lite0-57934424.pth`.
    private func requireCheckpoint(file: String = #fileID, function: String = #function) throws -> URL {
        let environment = ProcessInfo.processInfo.environment["COACH_BACKBONE_PTH"] ?? ""
        let url = environment.isEmpty
            ? SharedData.repositoryRoot.appendingPathComponent(".cache/efficientnet-lite0-57934424.pth")
            : URL(fileURLWithPath: environment)
        guard FileManager.default.fileExists(atPath: url.path) else {
            let message = "SKIPPED: the backbone checkpoint is not at \(url.path); run `make weights` or set COACH_BACKBONE_PTH"
            FileHandle.standardError.write(Data((message + "\n").utf8))
            throw skipTest(message, file: file, function: function)
        }
        return url
    }

    /// Importing twice (separate processes, different output folders) gives the same bytes,
    /// and the command reports what it did.
    func testImportIsDeterministicAndReported() throws {
        let checkpoint = try requireCheckpoint()
        let directory = try temporaryDirectory(self)
        let first = directory.appendingPathComponent("a/efficientnet-lite0.h5")
        let second = directory.appendingPathComponent("b/backbone.h5")
        let run = try CoachExecutable.run(["import-backbone", checkpoint.path, "--output", first.path])
        XCTAssertEqual(run.exitCode, 0, run.standardError)
        let rerun = try CoachExecutable.run(["import-backbone", checkpoint.path, "-o", second.path])
        XCTAssertEqual(rerun.exitCode, 0, rerun.standardError)
        XCTAssertEqual(try Data(contentsOf: first), try Data(contentsOf: second), "two imports differ")

        let digest = try FileDigest.sha256(ofFileAt: first)
        let output = run.standardOutput
        for fragment in ["247 imported, 49 dropped", "4,694,024", first.path, "output SHA-256  \(digest)",
                         "579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db"] {
            XCTAssertTrue(output.contains(fragment), "'\(fragment)' missing from:\n\(output)")
        }

        let model = try ModelFile.read(from: first)
        XCTAssertEqual(model.metadata.task, .backbone)
        XCTAssertEqual(model.parameterCount, 4_694_024)
        XCTAssertNoThrow(try model.checkTensors(EfficientNetLite0Layout.parameterShapes))

        let inspect = try CoachExecutable.run(["inspect", first.path])
        XCTAssertEqual(inspect.exitCode, 0, inspect.standardError)
        XCTAssertTrue(inspect.standardOutput.contains("efficientnet-lite0"))
        XCTAssertTrue(inspect.standardOutput.contains("4,694,024 in 247 tensors"))
    }

    func testBadCheckpointsFailClearly() throws {
        let directory = try temporaryDirectory(self)
        let zip = directory.appendingPathComponent("new-style.pth")
        try Data([0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0, count: 64)).write(to: zip)
        let output = directory.appendingPathComponent("out.h5")
        let cases: [(URL, String)] = [
            (zip, "zip-format PyTorch checkpoints are not supported"),
            (directory.appendingPathComponent("absent.pth"), "does not exist"),
        ]
        for (url, fragment) in cases {
            let result = try CoachExecutable.run(["import-backbone", url.path, "--output", output.path])
            XCTAssertNotEqual(result.exitCode, 0)
            XCTAssertTrue(result.standardError.contains(fragment), "'\(fragment)' not in \(result.standardError)")
            XCTAssertTrue(result.standardError.contains(url.path), result.standardError)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["new-style.pth"])
    }
}
