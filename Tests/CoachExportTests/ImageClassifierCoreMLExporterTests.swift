import CoachExport
import CoachModels
import CoachRuntime
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// Exported Core ML image classifiers against independent references: Apple's validator passes
/// the file, and the NeuralNetwork interpreter written from the specification gives
/// `CoachRuntime.ImageClassifier`'s probabilities on real photos.
final class ImageClassifierCoreMLExporterTests: XCTestCase {
    func testTheInterpreterGivesCoachRuntimesProbabilitiesAndAppleValidatesTheFile() throws {
        let backbone = try BackboneFixture.load()
        let python = try CoreMLPeer.python()
        _ = try CoreMLPeer.validator()
        let directory = try temporaryDirectory(self)
        var largest: Float = 0, undecided = 0
        for kind in [ImageClassifierKind.logistic, .mlp] {
            let (modelURL, testFolder) = try ImageClassifierExportFixture.trainedModel(in: directory, classifier: kind, backbone: backbone)
            let exported = directory.appendingPathComponent("gear-\(kind.rawValue).mlmodel")
            try ModelExporter.export(modelAt: modelURL, format: .coreml, backbone: BackboneFixture.url).write(to: exported)

            let validation = try CoreMLPeer.validate(exported)
            XCTAssertTrue(validation.passed, validation.output)
            XCTAssertTrue(validation.output.contains("specificationVersion=4 minimalNeeded=4"), validation.output)

            let classifier = try ImageClassifier(contentsOf: modelURL, backbone: BackboneFixture.url)
            let photos = try ImageClassifierExportFixture.photos(in: testFolder)
            XCTAssertGreaterThanOrEqual(photos.count, 3)
            let encoding = classifier.model.encoding
            var runs: [[String: URL]] = []
            for (index, photo) in photos.enumerated() {
                // What Vision's centre crop hands the model: the centre square of the photo scaled to 256².
                let input = directory.appendingPathComponent("square-\(index).f32")
                try ImageClassifierExportFixture.writeInput(of: photo, encoding: encoding, side: encoding.shortSide, to: input)
                runs.append(["image": input])
            }
            let report = try CoreMLPeer.run(model: exported, runs: runs, python: python)
            try CoreMLPeer.checkCoreMLToolsLoads(exported, report: report, python: python)

            // The interface, as a Create ML image classifier's.
            let labels = classifier.labels
            XCTAssertEqual(report.specificationVersion, 4)
            XCTAssertEqual(report.type, "neuralNetworkClassifier")
            XCTAssertEqual(report.description.inputs.map(\.name), ["image"])
            XCTAssertEqual(report.description.inputs.first?.type, "image")
            XCTAssertEqual(report.description.inputs.first?.width, 256)
            XCTAssertEqual(report.description.inputs.first?.height, 256)
            XCTAssertEqual(report.description.inputs.first?.colorSpace, "RGB")
            XCTAssertEqual(Set(report.description.outputs.map(\.name)), ["classLabel", "classLabelProbs"])
            XCTAssertEqual(report.description.predictedFeatureName, "classLabel")
            XCTAssertEqual(report.description.predictedProbabilitiesName, "classLabelProbs")
            XCTAssertEqual(report.classLabels, labels)
            XCTAssertEqual(report.description.metadata?.shortDescription, "Sports gear, for the export test")
            XCTAssertEqual(report.description.metadata?.author, "Coach tests")
            XCTAssertEqual(report.description.metadata?.license, "CC0-1.0")
            XCTAssertEqual(report.description.metadata?.versionString, "Coach \(CoachVersion.current)", "the Coach version that trained it")
            XCTAssertEqual(report.description.metadata?.userDefined?["task"], "image-classifier")
            XCTAssertNotNil(report.description.metadata?.userDefined?["training"])
            XCTAssertEqual(report.layers["convolution"], 1 + 16 + 15 + 16 + 1, "stem, 16 depthwise, 15 expansions, 16 projections, head")
            XCTAssertEqual(report.layers["add"], 9, "the blocks with skip connections")
            XCTAssertEqual(report.layers["innerProduct"], kind == .mlp ? 2 : 1)
            let wide = ImageClassifierExportFixture.featureLayers(for: kind) == .headAndStride16
            XCTAssertEqual(classifier.model.featureLayers, ImageClassifierExportFixture.featureLayers(for: kind))
            XCTAssertEqual(report.layers["pooling"], wide ? 2 : 1, "the head's map, and the stride-16 map when the model reads it")
            XCTAssertEqual(report.layers["concat"], wide ? 1 : nil)

            // The numbers: the interpreter on the 256² square vs CoachRuntime on the photo.
            XCTAssertEqual(report.results.count, photos.count)
            for (photo, result) in zip(photos, report.results) {
                let coach = try classifier.predictions(for: photo)
                guard let probabilities = result["classLabelProbs"]?.probabilities else {
                    XCTFail("no classLabelProbs for \(photo.lastPathComponent): \(result.keys)")
                    continue
                }
                XCTAssertEqual(result["classLabel"]?.string, coach[0].label, photo.lastPathComponent)
                XCTAssertEqual(Set(probabilities.keys), Set(labels))
                ImageClassifierExportFixture.compare(coach, with: { Float(probabilities[$0] ?? -1) },
                                                     context: "\(kind) \(photo.lastPathComponent)", largest: &largest, undecided: &undecided)
            }
        }
        XCTAssertGreaterThan(undecided, 0, "some probabilities should be far from 0 and 1, so the comparison means something")
        print("ImageClassifierCoreMLExporterTests: max |interpreter − CoachRuntime| probability difference \(largest) "
              + "(\(undecided) probabilities in 0.01…0.99)")
    }
}
