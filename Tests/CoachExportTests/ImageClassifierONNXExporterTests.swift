import CoachExport
import CoachModels
import CoachRuntime
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// Exported image classifiers against independent references: the `onnx` package parses and
/// fully checks the file, and onnxruntime's probabilities on real images equal
/// `CoachRuntime.ImageClassifier`'s on the same pixels.
final class ImageClassifierONNXExporterTests: XCTestCase {
    func testOnnxRuntimeGivesCoachRuntimesProbabilities() throws {
        let backbone = try BackboneFixture.load()
        let python = try ONNXPeer.python()
        let directory = try temporaryDirectory(self)
        var largest: Float = 0, undecided = 0
        for kind in [ImageClassifierKind.logistic, .mlp] {
            let (modelURL, testFolder) = try ImageClassifierExportFixture.trainedModel(in: directory, classifier: kind, backbone: backbone)
            let onnxURL = directory.appendingPathComponent("gear-\(kind.rawValue).onnx")
            try ModelExporter.export(modelAt: modelURL, format: .onnx, backbone: BackboneFixture.url).write(to: onnxURL)

            let classifier = try ImageClassifier(contentsOf: modelURL, backbone: BackboneFixture.url)
            let photos = try ImageClassifierExportFixture.photos(in: testFolder)
            XCTAssertGreaterThanOrEqual(photos.count, 3)
            var inputs: [URL] = []
            for (index, photo) in photos.enumerated() {
                let input = directory.appendingPathComponent("input-\(index).f32")
                try ImageClassifierExportFixture.writeInput(of: photo, encoding: classifier.model.encoding, to: input)
                inputs.append(input)
            }
            let report = try ONNXPeer.run(model: onnxURL, inputs: inputs, python: python, in: directory)

            // The interface.
            let labels = classifier.labels
            XCTAssertEqual(report.irVersion, 7)
            XCTAssertEqual(report.opsets, ["": 13])
            XCTAssertEqual(report.producerName, "Coach")
            XCTAssertEqual(report.inputs.map(\.name), ["image"])
            XCTAssertEqual(report.inputs.first?.shape, [1, 3, 224, 224])
            XCTAssertEqual(report.inputs.first?.elementType, 1)
            XCTAssertEqual(report.outputs.map(\.name), ["classLabelProbs"])
            XCTAssertEqual(report.outputs.first?.shape, [1, labels.count])
            XCTAssertEqual(report.metadata["classLabels"], "[" + labels.map { "\"\($0)\"" }.joined(separator: ",") + "]")
            XCTAssertEqual(report.metadata["description"], "Sports gear, for the export test")
            XCTAssertEqual(report.metadata["author"], "Coach tests")
            XCTAssertEqual(report.metadata["license"], "CC0-1.0")
            XCTAssertEqual(report.metadata["task"], "image-classifier")
            XCTAssertNotNil(report.metadata["training"])
            XCTAssertEqual(report.operators["Conv"], 1 + 16 + 15 + 16 + 1, "stem, 16 depthwise, 15 expansions, 16 projections, head")
            XCTAssertEqual(report.operators["Add"], 9, "the blocks with skip connections")
            XCTAssertEqual(report.operators["Gemm"], kind == .mlp ? 2 : 1)
            let wide = ImageClassifierExportFixture.featureLayers(for: kind) == .headAndStride16
            XCTAssertEqual(classifier.model.featureLayers, ImageClassifierExportFixture.featureLayers(for: kind))
            XCTAssertEqual(report.operators["GlobalAveragePool"], wide ? 2 : 1, "the head's map, and the stride-16 map when the model reads it")
            XCTAssertEqual(report.operators["Concat"], wide ? 1 : nil)

            // The numbers: onnxruntime on the preprocessed pixels vs CoachRuntime on the photo.
            XCTAssertEqual(report.results.count, photos.count)
            for (photo, onnx) in zip(photos, report.results) {
                let coach = try classifier.predictions(for: photo)
                XCTAssertEqual(onnx.count, labels.count)
                ImageClassifierExportFixture.compare(coach, with: { onnx[labels.firstIndex(of: $0)!] },
                                                     context: "\(kind) \(photo.lastPathComponent)", largest: &largest, undecided: &undecided)
            }
        }
        XCTAssertGreaterThan(undecided, 0, "some probabilities should be far from 0 and 1, so the comparison means something")
        print("ImageClassifierONNXExporterTests: max |onnxruntime − CoachRuntime| probability difference \(largest) "
              + "(\(undecided) probabilities in 0.01…0.99)")
    }

    func testTheSameModelExportsToTheSameBytesInEveryFormat() throws {
        let backbone = try BackboneFixture.load()
        let directory = try temporaryDirectory(self)
        let head = ImageClassifierHead(layers: [ImageClassifierHead.Layer(weight: Tensor(shape: [1280, 2], scalars: (0..<2560).map { Float($0 % 7) / 100 }),
                                                                          bias: Tensor([0.5, -0.5]))])
        let model = ImageClassifierModel(labels: ["ball", "cone"], head: head, backbone: ImageClassifierModel.reference(to: backbone),
                                         name: "twice", training: ["seed": 1], metrics: ["training.accuracy": 1])
        let url = directory.appendingPathComponent("twice.h5")
        try model.modelFile().write(to: url)
        for format in ExportFormat.allCases {
            let first = try ModelExporter.export(modelAt: url, format: format, backbone: BackboneFixture.url)
            let second = try ModelExporter.export(modelAt: url, format: format, backbone: BackboneFixture.url)
            XCTAssertEqual(first, second, "\(format)")
            // EfficientNet-Lite0 without its ImageNet classifier: 3.4 million float32 weights.
            XCTAssertGreaterThan(first.count, 13_000_000, "\(format): the backbone's weights are inside")
        }
    }

    func testFilesThatCannotBeExportedAreClearErrors() throws {
        let directory = try temporaryDirectory(self)
        // Not a model file at all.
        let text = directory.appendingPathComponent("notes.h5")
        try Data("not a model".utf8).write(to: text)
        XCTAssertThrowsError(try ModelExporter.export(modelAt: text, format: .onnx)) { error in
            XCTAssertTrue(error is ModelFileError, "\(error)")
            XCTAssertTrue(error.localizedDescription.contains(text.path), error.localizedDescription)
        }
        // A kind of model Coach cannot export: refused before any weights are read, saying so.
        let unknown = directory.appendingPathComponent("regressor.h5")
        try ModelFile(metadata: ModelMetadata(task: "pose-regressor", classLabels: []), tensors: [:]).write(to: unknown)
        for format in ExportFormat.allCases {
            XCTAssertThrowsError(try ModelExporter.export(modelAt: unknown, format: format)) { error in
                XCTAssertEqual(error as? ExportError, .notImplemented(path: unknown.path, task: "pose-regressor", format: format))
                XCTAssertTrue(error.localizedDescription.contains("is not implemented"), error.localizedDescription)
            }
        }
        let other = directory.appendingPathComponent("throws.h5")
        try ModelFile(metadata: ModelMetadata(task: .actionClassifier, classLabels: ["a", "b"]), tensors: [:]).write(to: other)
        let head = ImageClassifierHead(layers: [ImageClassifierHead.Layer(weight: Tensor.zeros([1280, 2]), bias: Tensor.zeros([2]))])
        let classifier = directory.appendingPathComponent("gear.h5")
        try ImageClassifierModel(labels: ["a", "b"], head: head,
                                 backbone: BackboneReference(name: "efficientnet-lite0", sha256: String(repeating: "0", count: 64)))
            .modelFile().write(to: classifier)
        XCTAssertThrowsError(try ModelExporter.export(modelAt: other, format: .coreml)) { error in
            // An action classifier without its pose input or weights.
            XCTAssertTrue(error.localizedDescription.contains(other.path), error.localizedDescription)
            XCTAssertTrue(error.localizedDescription.contains("$.input.pose"), error.localizedDescription)
        }
        // A missing backbone names the file looked for.
        let missing = directory.appendingPathComponent("no-backbone.h5")
        XCTAssertThrowsError(try ModelExporter.export(modelAt: classifier, format: .onnx, backbone: missing)) { error in
            XCTAssertTrue(error.localizedDescription.contains(missing.path), error.localizedDescription)
        }
    }
}
