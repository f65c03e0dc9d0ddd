import CoachModels
import CoachTensor
import Foundation
import TestSupport
import XCTest

final class InspectCommandTests: XCTestCase {
    private func writeSampleModel(in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("boards.h5")
        let metadata = ModelMetadata(
            task: .imageClassifier, name: "boards", classLabels: ["board", "no-board"],
            input: InputSpecification(image: ImageInputSpecification(
                width: 224, height: 224, mean: [127, 127, 127], standardDeviation: [128, 128, 128])),
            training: ["epochs": 12, "augmentations": ["flip"]],
            metrics: ["validation.accuracy": 0.875],
            backbone: BackboneReference(name: "efficientnet-lite0", sha256: String(repeating: "c", count: 64)))
        try ModelFile(metadata: metadata, tensors: [
            "head.dense.weight": Tensor(repeating: 0.5, shape: [1280, 2]),
            "head.dense.bias": Tensor([0, 1]),
            "head.temperature": Tensor(1),
        ]).write(to: url)
        return url
    }

    func testTextReport() throws {
        let directory = try temporaryDirectory(self)
        let url = try writeSampleModel(in: directory)
        let result = try CoachExecutable.run(["inspect", url.path])
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        XCTAssertEqual(result.standardError, "")
        let text = result.standardOutput
        for fragment in ["coach-model, version 1", "image-classifier", "2: board, no-board",
                         "image 224×224 RGB NHWC, pixels 0…255, normalised (x − [127, 127, 127]) / [128, 128, 128]",
                         "requires efficientnet-lite0 (SHA-256 \(String(repeating: "c", count: 64)))",
                         "epochs", "12", "augmentations", "[flip]", "validation.accuracy", "0.875",
                         "2,563 in 3 tensors", try FileDigest.sha256(ofFileAt: url)] {
            XCTAssertTrue(text.contains(fragment), "'\(fragment)' missing from:\n\(text)")
        }
        XCTAssertFalse(text.contains("head.dense.weight"), "tensors are listed only with --tensors")

        let withTensors = try CoachExecutable.run(["inspect", "--tensors", url.path]).standardOutput
        XCTAssertTrue(withTensors.contains("head.dense.weight  [1280, 2]"), withTensors)
        XCTAssertTrue(withTensors.contains("head.temperature   []"), withTensors)
    }

    func testJSONReport() throws {
        let directory = try temporaryDirectory(self)
        let url = try writeSampleModel(in: directory)
        let result = try CoachExecutable.run(["inspect", url.path, "--json", "--tensors"])
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(object["format"] as? String, "coach-model")
        XCTAssertEqual(object["formatVersion"] as? Int, 1)
        XCTAssertEqual(object["weightsVerified"] as? Bool, true)
        XCTAssertEqual(object["parameterCount"] as? Int, 2563)
        XCTAssertEqual(object["tensorCount"] as? Int, 3)
        XCTAssertEqual(object["sha256"] as? String, try FileDigest.sha256(ofFileAt: url))
        let metadata = try XCTUnwrap(object["metadata"] as? [String: Any])
        XCTAssertEqual(metadata["task"] as? String, "image-classifier")
        XCTAssertEqual(metadata["classLabels"] as? [String], ["board", "no-board"])
        XCTAssertEqual((metadata["metrics"] as? [String: Double])?["validation.accuracy"], 0.875)
        let tensors = try XCTUnwrap(object["tensors"] as? [[String: Any]])
        XCTAssertEqual(tensors.map { $0["name"] as? String }, ["head.dense.bias", "head.dense.weight", "head.temperature"])
        XCTAssertEqual(tensors[1]["shape"] as? [Int], [1280, 2])

        let withoutTensors = try CoachExecutable.run(["inspect", url.path, "--json"]).standardOutput
        let plain = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(withoutTensors.utf8)) as? [String: Any])
        XCTAssertNil(plain["tensors"])
    }

    func testBadFilesFailWithAMessageOnStandardError() throws {
        let directory = try temporaryDirectory(self)
        let text = directory.appendingPathComponent("notes.h5")
        try Data("not a model\n".utf8).write(to: text)
        let model = try writeSampleModel(in: directory)
        let truncated = directory.appendingPathComponent("cut.h5")
        try Data(try Data(contentsOf: model).prefix(5000)).write(to: truncated)

        let cases: [(URL, String)] = [
            (text, "is not an HDF5 model file (it looks like a text file)"),
            (directory.appendingPathComponent("absent.h5"), "does not exist"),
            (truncated, "is truncated (5000 bytes on disk"),
        ]
        for (url, fragment) in cases {
            for arguments in [["inspect", url.path], ["inspect", "--json", url.path]] {
                let result = try CoachExecutable.run(arguments)
                XCTAssertNotEqual(result.exitCode, 0, "\(arguments)")
                XCTAssertEqual(result.standardOutput, "", "\(arguments)")
                XCTAssertTrue(result.standardError.contains(url.path), result.standardError)
                XCTAssertTrue(result.standardError.contains(fragment), "'\(fragment)' not in \(result.standardError)")
            }
        }
    }
}
