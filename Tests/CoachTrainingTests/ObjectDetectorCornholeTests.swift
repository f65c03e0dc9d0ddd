import CoachData
import CoachModels
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// The must-show result on real photos: the cornhole set (149 overhead photos, labels
/// board, hole, red_bag, blue_bag), trained with the default recipe on a seeded 80 % and
/// evaluated on the other 20 %.
///
/// Costs about 1–3 minutes in release (backbone maps of 119 × 8 views at 416², then ~830
/// head iterations on cached maps).
final class ObjectDetectorCornholeTests: XCTestCase {
    func testDefaultRecipeOnTheCornholePhotos() throws {
        let annotations = try SharedData.require("data/cornhole/images/annotations.json")
        let backbone = try BackboneFixture.load()
        let dataset = try DetectionDataset.load(from: annotations)
        XCTAssertEqual(dataset.images.count, 149)
        XCTAssertEqual(dataset.labels, ["blue_bag", "board", "hole", "red_bag"])
        var generator = SeededGenerator(seed: 0)
        let parts = dataset.split(validationFraction: 0.2, using: &generator)
        XCTAssertEqual(parts.validation.images.count, 30)

        let trained = try ObjectDetectorTrainer.train(training: parts.training, validation: nil, backbone: backbone,
                                                      configuration: ObjectDetectorTrainingConfiguration(seed: 0))
        let metrics = try ObjectDetectorEvaluation.evaluate(model: trained.model, backbone: backbone.network, dataset: parts.validation)
        var lines = [String(format: "cornhole 20%% held out (%d photos): mAP@0.5 %.3f, mAP@0.5:0.95 %.3f",
                            metrics.imageCount, metrics.meanAveragePrecision50, metrics.meanAveragePrecision)]
        for c in metrics.perClass {
            lines.append(String(format: "  %@  AP50 %.3f  AP %.3f  precision %.3f  recall %.3f", c.label, c.ap50 ?? .nan, c.ap ?? .nan,
                                c.precision, c.recall))
        }
        print(lines.joined(separator: "\n"))
        func ap50(_ label: String) -> Double { metrics.perClass.first { $0.label == label }?.ap50 ?? 0 }
        XCTAssertGreaterThanOrEqual(ap50("board"), 0.95)
        XCTAssertGreaterThanOrEqual(ap50("red_bag"), 0.85)
        XCTAssertGreaterThanOrEqual(ap50("blue_bag"), 0.85)
        XCTAssertGreaterThanOrEqual(ap50("hole"), 0.85)
    }
}
