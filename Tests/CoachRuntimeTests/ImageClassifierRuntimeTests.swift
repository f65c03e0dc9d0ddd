import CoachRuntime
import Foundation
import TestSupport
import XCTest

/// `CoachRuntime.ImageClassifier` against an independent reference: a head made of four
/// columns of the backbone's own ImageNet classifier must reproduce the numpy reference's
/// logits for the shared reference photos.
final class ImageClassifierRuntimeTests: XCTestCase {
    struct Reference: Decodable {
        struct Image: Decodable {
            struct Top: Decodable { var `class`: Int; var name: String }
            var name: String
            var file: String
            var logits: String
            var top5: [Top]
        }
        var images: [Image]
    }

    /// Writes an image-classifier model whose head is the ImageNet classifier restricted to `classes`.
    private func writeImageNetSubsetModel(classes: [Int], labels: [String], backbone: Backbone, to url: URL) throws {
        // Recover W and b of the ImageNet layer through its public API: logits(0) = b, logits(e_i) = W_i + b.
        let bias = backbone.network.logits(features: Tensor.zeros([1, 1280]))
        let rows = backbone.network.logits(features: Tensor.identity(1280))
        var weight: [Float] = [], subsetBias: [Float] = []
        for row in 0..<1280 {
            for column in classes { weight.append(rows.scalars[row * 1000 + column] - bias.scalars[column]) }
        }
        for column in classes { subsetBias.append(bias.scalars[column]) }
        let head = ImageClassifierHead(layers: [ImageClassifierHead.Layer(weight: Tensor(shape: [1280, classes.count], scalars: weight),
                                                                          bias: Tensor(subsetBias))])
        let model = ImageClassifierModel(labels: labels, head: head, backbone: ImageClassifierModel.reference(to: backbone),
                                         name: "imagenet-subset")
        try model.modelFile().write(to: url)
    }

    func testPredictionsMatchTheReferenceLogitsAndAreSorted() throws {
        let backbone = try BackboneFixture.load()
        let folder = try SharedData.require("reference/efficientnet-lite0")
        let reference = try JSONDecoder().decode(Reference.self, from: Data(contentsOf: folder.appendingPathComponent("reference.json")))
        let classes = reference.images.map { $0.top5[0].class }
        let labels = reference.images.map { $0.top5[0].name }
        let directory = try temporaryDirectory(self)
        let modelURL = directory.appendingPathComponent("subset.h5")
        try writeImageNetSubsetModel(classes: classes, labels: labels, backbone: backbone, to: modelURL)

        // The documented example, with real paths.
        let classifier = try ImageClassifier(contentsOf: modelURL, backbone: BackboneFixture.url)
        for (index, image) in reference.images.enumerated() {
            let predictions = try classifier.predictions(for: folder.appendingPathComponent(image.file))
            XCTAssertEqual(predictions.count, 4)
            XCTAssertEqual(predictions[0].label, labels[index], image.name)
            XCTAssertEqual(predictions.map(\.confidence), predictions.map(\.confidence).sorted(by: >))
            XCTAssertEqual(predictions.map(\.confidence).reduce(0, +), 1, accuracy: 1e-5)
            // Softmax over the reference logits of the four classes (numpy, from the same photo).
            let data = try Data(contentsOf: folder.appendingPathComponent(image.logits))
            let logits = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            let subset = classes.map { Double(logits[$0]) }
            let maximum = subset.max()!
            let exponentials = subset.map { Foundation.exp($0 - maximum) }
            let total = exponentials.reduce(0, +)
            for prediction in predictions {
                let expected = exponentials[labels.firstIndex(of: prediction.label)!] / total
                XCTAssertEqual(prediction.confidence, expected, accuracy: 2e-3, "\(image.name) \(prediction.label)")
            }
        }
        // Decoded pixels give the same answer as the file.
        let chelsea = folder.appendingPathComponent(reference.images[0].file)
        XCTAssertEqual(try classifier.predictions(for: RGBImage(contentsOf: chelsea)).map(\.label),
                       try classifier.predictions(for: chelsea).map(\.label))
    }

    func testAnotherBackboneIsAClearError() throws {
        let backbone = try BackboneFixture.load()
        let head = ImageClassifierHead(layers: [ImageClassifierHead.Layer(weight: Tensor.zeros([1280, 2]), bias: Tensor.zeros([2]))])
        let other = BackboneReference(name: "efficientnet-lite0", sha256: String(repeating: "0", count: 64))
        let model = ImageClassifierModel(labels: ["a", "b"], head: head, backbone: other)
        XCTAssertThrowsError(try ImageClassifier(model: model, backbone: backbone, modelPath: "gear.h5")) { error in
            let message = error.localizedDescription
            XCTAssertTrue(message.contains("gear.h5") && message.contains(String(repeating: "0", count: 64))
                          && message.contains(backbone.sha256), message)
        }
    }

    func testUndecodableImageNamesTheFile() throws {
        let backbone = try BackboneFixture.load()
        let head = ImageClassifierHead(layers: [ImageClassifierHead.Layer(weight: Tensor.zeros([1280, 2]), bias: Tensor([0, 1]))])
        let classifier = try ImageClassifier(model: ImageClassifierModel(labels: ["a", "b"], head: head,
                                                                         backbone: ImageClassifierModel.reference(to: backbone)),
                                             backbone: backbone)
        let directory = try temporaryDirectory(self)
        let broken = directory.appendingPathComponent("broken.png")
        try Data("no".utf8).write(to: broken)
        XCTAssertThrowsError(try classifier.predictions(for: broken)) { error in
            XCTAssertTrue(error.localizedDescription.contains(broken.path), error.localizedDescription)
        }
        let grey = RGBImage(width: 40, height: 30, color: RGBColor(red: 90, green: 90, blue: 90))
        let predictions = try classifier.predictions(for: grey)
        XCTAssertEqual(predictions.map(\.label), ["b", "a"])
        XCTAssertEqual(predictions[0].confidence, 1 / (1 + exp(-1)), accuracy: 1e-5)
    }
}
