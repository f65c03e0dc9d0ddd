import CoachData
import CoachModels
import CoachRandom
import Foundation
import TestSupport
import XCTest

/// `coach export`: what it writes, what it refuses, and that a refusal leaves nothing behind.
final class ExportCommandTests: XCTestCase {
    /// An image classifier on the test backbone (head weights made up: the numbers are tested in CoachExportTests).
    private func writeClassifier(in directory: URL, backbone: Backbone) throws -> URL {
        let url = directory.appendingPathComponent("gear.h5")
        let head = ImageClassifierHead(layers: [ImageClassifierHead.Layer(weight: Tensor(repeating: 0.01, shape: [1280, 2]),
                                                                          bias: Tensor([0, 1]))])
        try ImageClassifierModel(labels: ["ball", "cone"], head: head, backbone: ImageClassifierModel.reference(to: backbone))
            .modelFile().write(to: url)
        return url
    }

    func testExportWritesAnONNXFileAndRefusesToReplaceIt() throws {
        let backbone = try BackboneFixture.load()
        let directory = try temporaryDirectory(self)
        let model = try writeClassifier(in: directory, backbone: backbone)
        let output = directory.appendingPathComponent("gear.onnx")
        let environment = ["COACH_BACKBONE": BackboneFixture.url.path]
        let result = try CoachExecutable.run(["export", model.path, "--format", "onnx", "--output", output.path],
                                             environment: environment)
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("wrote \(output.path) (ONNX"), result.standardOutput)
        let first = try Data(contentsOf: output)
        XCTAssertGreaterThan(first.count, 13_000_000)
        // ModelProto starts with ir_version 7 (08 07).
        XCTAssertEqual(Array(first.prefix(2)), [0x08, 0x07])

        let again = try CoachExecutable.run(["export", model.path, "--format", "onnx", "--output", output.path],
                                            environment: environment)
        XCTAssertNotEqual(again.exitCode, 0)
        XCTAssertTrue(again.standardError.contains("--overwrite"), again.standardError)
        let replaced = try CoachExecutable.run(["export", model.path, "--format", "onnx", "--output", output.path, "--overwrite"],
                                               environment: environment)
        XCTAssertEqual(replaced.exitCode, 0, replaced.standardError)
        XCTAssertEqual(try Data(contentsOf: output), first, "the same model exports to the same bytes")
    }

    func testExportWritesACoreMLImageClassifier() throws {
        let backbone = try BackboneFixture.load()
        let directory = try temporaryDirectory(self)
        let model = try writeClassifier(in: directory, backbone: backbone)
        let output = directory.appendingPathComponent("Gear.mlmodel")
        let result = try CoachExecutable.run(["export", model.path, "--format", "coreml", "--output", output.path],
                                             environment: ["COACH_BACKBONE": BackboneFixture.url.path])
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("wrote \(output.path) (Core ML"), result.standardOutput)
        let data = try Data(contentsOf: output)
        XCTAssertGreaterThan(data.count, 13_000_000, "the backbone's weights are inside")
        // Model starts with specificationVersion 4 (08 04).
        XCTAssertEqual(Array(data.prefix(2)), [0x08, 0x04])
    }

    func testExportWritesACoreMLActionClassifier() throws {
        let directory = try temporaryDirectory(self)
        // A freshly initialised throw classifier (the numbers are tested in CoachExportTests).
        var generator = SeededGenerator(seed: 1)
        let encoding = ActionInputEncoding(windowLength: 45, jointCount: JointSet.body18.count, includesDepth: false)
        let model = ActionClassifierModel(labels: ["none", "overhand", "underhand", "underleg"], jointSet: .body18, frameRate: 30,
                                          encoding: encoding, architecture: .graphConvolution(for: SkeletonGraph(jointSet: .body18)),
                                          generator: &generator)
        let url = directory.appendingPathComponent("throws.h5")
        try model.modelFile().write(to: url)
        let output = directory.appendingPathComponent("PlayerActionClassifier.mlmodel")
        let result = try CoachExecutable.run(["export", url.path, "--format", "coreml", "--output", output.path])
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("wrote \(output.path) (Core ML"), result.standardOutput)
        XCTAssertEqual(Array(try Data(contentsOf: output).prefix(2)), [0x08, 0x04])
    }

    func testExportWritesAnObjectDetector() throws {
        let backbone = try BackboneFixture.load()
        let directory = try temporaryDirectory(self)
        // A freshly initialised detector (the numbers are tested in CoachExportTests).
        let anchors = [AnchorSize(width: 20, height: 30)]
        let configuration = DetectorConfiguration(inputWidth: 64, inputHeight: 64,
                                                  levels: [DetectionLevel(stride: 16, anchors: anchors), DetectionLevel(stride: 32, anchors: anchors)],
                                                  headWidth: 8, headBlocks: 1, classCount: 2)
        var generator = SeededGenerator(seed: 1)
        let model = directory.appendingPathComponent("board.h5")
        try ObjectDetectorModel(configuration: configuration, classLabels: ["board", "hole"], generator: &generator)
            .modelFile(backbone: ImageClassifierModel.reference(to: backbone)).write(to: model)
        let output = directory.appendingPathComponent("board.onnx")
        let result = try CoachExecutable.run(["export", model.path, "--format", "onnx", "--output", output.path],
                                             environment: ["COACH_BACKBONE": BackboneFixture.url.path])
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("wrote \(output.path) (ONNX"), result.standardOutput)
        XCTAssertEqual(Array(try Data(contentsOf: output).prefix(2)), [0x08, 0x07])
    }

    func testRefusalsAreClearAndWriteNothing() throws {
        let directory = try temporaryDirectory(self)
        let output = directory.appendingPathComponent("out.onnx")
        func run(_ arguments: [String]) throws -> CoachExecutable.Result {
            let result = try CoachExecutable.run(["export"] + arguments + ["--output", output.path],
                                                 environment: ["COACH_BACKBONE": directory.appendingPathComponent("none.h5").path])
            XCTAssertNotEqual(result.exitCode, 0, "coach export \(arguments)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: output.path), "coach export \(arguments) wrote \(output.path)")
            return result
        }
        // Not a model file.
        let text = directory.appendingPathComponent("notes.h5")
        try Data("not a model".utf8).write(to: text)
        var result = try run([text.path, "--format", "onnx"])
        XCTAssertTrue(result.standardError.contains("error: ") && result.standardError.contains(text.path), result.standardError)

        // A pose classifier file without its weights: an error naming it; an unknown kind: said plainly.
        let classifier = directory.appendingPathComponent("gear.h5")
        let head = ImageClassifierHead(layers: [ImageClassifierHead.Layer(weight: Tensor.zeros([1280, 2]), bias: Tensor.zeros([2]))])
        try ImageClassifierModel(labels: ["a", "b"], head: head,
                                 backbone: BackboneReference(name: "efficientnet-lite0", sha256: String(repeating: "0", count: 64)))
            .modelFile().write(to: classifier)
        let actions = directory.appendingPathComponent("throws.h5")
        try ModelFile(metadata: ModelMetadata(task: .actionClassifier, classLabels: ["a", "b"])).write(to: actions)
        result = try run([actions.path, "--format", "coreml"])
        XCTAssertTrue(result.standardError.contains("error: ") && result.standardError.contains(actions.path), result.standardError)
        result = try run([actions.path, "--format", "onnx"])
        XCTAssertTrue(result.standardError.contains("error: ") && result.standardError.contains(actions.path), result.standardError)
        let unknown = directory.appendingPathComponent("regressor.h5")
        try ModelFile(metadata: ModelMetadata(task: "pose-regressor")).write(to: unknown)
        result = try run([unknown.path, "--format", "onnx"])
        XCTAssertTrue(result.standardError.contains("'pose-regressor' models to ONNX is not implemented"), result.standardError)

        // The backbone is missing: the backbone error every command gives.
        for format in ["onnx", "coreml"] {
            result = try run([classifier.path, "--format", format])
            XCTAssertTrue(result.standardError.contains("none.h5"), result.standardError)
        }

        // An unknown format is a usage error.
        result = try run([classifier.path, "--format", "tflite"])
        XCTAssertTrue(result.standardError.contains("--format"), result.standardError)
    }
}
