import CoachData
import CoachModels
import Foundation
import TestSupport
import XCTest

/// The image-classifier model file: round trip, validation of damaged files, and the
/// input encoding shared with the backbone's reference preprocessing.
final class ImageClassifierModelTests: XCTestCase {
    private func sampleModel() -> ImageClassifierModel {
        var generator = SeededGenerator(seed: 1)
        let hidden = ImageClassifierHead.Layer(weight: Tensor(shape: [1280, 8], scalars: (0..<10240).map { _ in generator.nextNormal() }),
                                               bias: Tensor(shape: [8], scalars: (0..<8).map { Float($0) }))
        let output = ImageClassifierHead.Layer(weight: Tensor(shape: [8, 3], scalars: (0..<24).map { _ in generator.nextNormal() }),
                                               bias: Tensor([0.5, -0.5, 0]))
        return ImageClassifierModel(labels: ["cone", "ball", "disc"], head: ImageClassifierHead(layers: [hidden, output]),
                                    backbone: BackboneReference(name: "efficientnet-lite0", sha256: String(repeating: "ab", count: 32),
                                                                fileName: "efficientnet-lite0.h5"),
                                    name: "gear", training: ["seed": 3], metrics: ["validation.accuracy": 0.9])
    }

    func testSaveThenLoadGivesTheSameModel() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("gear.h5")
        let model = sampleModel()
        try model.modelFile().write(to: url)
        let loaded = try ImageClassifierModel.read(from: url)
        XCTAssertEqual(loaded, model)
        XCTAssertEqual(loaded.head.kind, "mlp")
        let summary = try ModelFileSummary.read(from: url)
        XCTAssertEqual(summary.metadata.task, .imageClassifier)
        XCTAssertEqual(summary.metadata.input?.image?.resize, ImageResize(method: "short-side-center-crop", shortSide: 256))
        XCTAssertEqual(Set(summary.tensorNames), ["head.layers.0.weight", "head.layers.0.bias", "head.layers.1.weight", "head.layers.1.bias"])
        // Only the head is stored: far smaller than the 4.7 M-parameter backbone.
        XCTAssertEqual(summary.parameterCount, 1280 * 8 + 8 + 8 * 3 + 3)
    }

    func testDamagedModelsListTheirProblems() throws {
        let directory = try temporaryDirectory(self)
        var file = sampleModel().modelFile()
        file.tensors["head.layers.1.weight"] = Tensor.zeros([8, 4])
        file.tensors.removeValue(forKey: "head.layers.1.bias")
        let url = directory.appendingPathComponent("bad.h5")
        try file.write(to: url)
        XCTAssertThrowsError(try ImageClassifierModel.read(from: url)) { error in
            XCTAssertTrue(error.localizedDescription.contains("head.layers.1.bias' is missing"), error.localizedDescription)
            XCTAssertTrue(error.localizedDescription.contains(url.path))
        }
        var wrongTask = sampleModel().modelFile()
        wrongTask.metadata.task = .objectDetector
        try wrongTask.write(to: url)
        XCTAssertThrowsError(try ImageClassifierModel.read(from: url)) { error in
            XCTAssertEqual(error as? ImageClassifierModelError, .wrongTask(path: url.path, task: "object-detector"))
        }
        var noBackbone = sampleModel().modelFile()
        noBackbone.metadata.backbone = nil
        try noBackbone.write(to: url)
        XCTAssertThrowsError(try ImageClassifierModel.read(from: url)) { error in
            XCTAssertEqual(error as? ImageClassifierModelError, .missingBackbone(path: url.path))
        }
    }

    func testFeatureLayersAreRecordedAndOlderFilesReadTheHeadAlone() throws {
        let directory = try temporaryDirectory(self)
        let url = directory.appendingPathComponent("layers.h5")
        // A head over head+stride16 features: 1,392 inputs, recorded and read back.
        var generator = SeededGenerator(seed: 2)
        let wide = ImageClassifierHead(layers: [ImageClassifierHead.Layer(
            weight: Tensor(shape: [1392, 3], scalars: (0..<(1392 * 3)).map { _ in generator.nextNormal() }), bias: Tensor([0, 0, 0]))])
        var model = sampleModel()
        model.head = wide
        model.featureLayers = .headAndStride16
        try model.modelFile().write(to: url)
        let loaded = try ImageClassifierModel.read(from: url)
        XCTAssertEqual(loaded.featureLayers, .headAndStride16)
        XCTAssertEqual(loaded, model)
        // A file written before the key existed reads the head's 1,280 features.
        var old = sampleModel().modelFile()
        old.metadata.extra.removeValue(forKey: "features")
        try old.write(to: url)
        XCTAssertEqual(try ImageClassifierModel.read(from: url).featureLayers, .head)
        // A head whose width does not match the recorded layers, and an unknown layer name, are both reported.
        var mismatched = model.modelFile()
        mismatched.metadata.extra["features"] = "head"
        try mismatched.write(to: url)
        XCTAssertThrowsError(try ImageClassifierModel.read(from: url)) { error in
            XCTAssertTrue(error.localizedDescription.contains("1280"), error.localizedDescription)
        }
        var unknown = model.modelFile()
        unknown.metadata.extra["features"] = "stem"
        try unknown.write(to: url)
        XCTAssertThrowsError(try ImageClassifierModel.read(from: url)) { error in
            XCTAssertTrue(error.localizedDescription.contains("extra.features"), error.localizedDescription)
            XCTAssertTrue(error.localizedDescription.contains("'head+stride16'"), error.localizedDescription)
        }
    }

    func testEncodingMatchesTheBackboneReferencePreprocessing() throws {
        let image = try RGBImage(width: 300, height: 260, pixels: (0..<(300 * 260 * 3)).map { UInt8(($0 * 7) % 256) })
        let encoded = try ImageInputEncoding.efficientNetLite0.encode(image)
        XCTAssertEqual(encoded, try Backbone.preprocess(image).scalars)
        let roundTrip = try ImageInputEncoding(specification: ImageInputEncoding.efficientNetLite0.specification)
        XCTAssertEqual(roundTrip, .efficientNetLite0)
        var odd = ImageInputEncoding.efficientNetLite0.specification
        odd.layout = "NCHW"
        odd.mean = [1, 2, 3]
        XCTAssertThrowsError(try ImageInputEncoding(specification: odd, path: "m.h5")) { error in
            guard case let .unsupportedInput(path, problems)? = error as? ImageClassifierModelError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "m.h5")
            XCTAssertEqual(problems.count, 2)
        }
    }

    func testCheckBackboneNamesBothDigests() throws {
        let backbone = try BackboneFixture.load()
        XCTAssertThrowsError(try sampleModel().checkBackbone(backbone, modelPath: "gear.h5")) { error in
            guard case .mismatch? = error as? BackboneError else { return XCTFail("\(error)") }
            XCTAssertTrue(error.localizedDescription.contains(backbone.sha256))
        }
        var model = sampleModel()
        model.backbone = ImageClassifierModel.reference(to: backbone)
        XCTAssertNoThrow(try model.checkBackbone(backbone, modelPath: "gear.h5"))
    }
}
