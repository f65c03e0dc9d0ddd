import CoachData
import CoachModels
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// Real photos: crops of the cornhole boxes (board, hole, red and blue bags, background),
/// split by photo, must be classified at ≥ 95 % accuracy on the held-out photos.
final class ImageClassifierCornholeTests: XCTestCase {
    func testCropClassifierReaches95PercentOnHeldOutPhotos() throws {
        let backbone = try BackboneFixture.load()
        let directory = try temporaryDirectory(self)
        let summary = try ImageClassifierFixtures.cornholeCrops(in: directory)
        // Split by photo: no photo feeds both sides.
        XCTAssertTrue(Set(summary.trainingPhotos).isDisjoint(with: summary.testPhotos))
        XCTAssertEqual(summary.trainingPhotos.count + summary.testPhotos.count, 149)
        XCTAssertEqual(summary.trainingPhotos.count, 112)
        for split in ["train", "test"] {
            XCTAssertEqual(Set(summary.counts[split]!.keys), ["board", "hole", "red_bag", "blue_bag", "background"])
        }
        var events: [TrainingEvent] = []
        let trainer = try ImageClassifierTrainer(configuration: ImageClassifierTrainingConfiguration(), backbone: backbone,
                                                 featureCache: ImageClassifierFixtures.featureCache,
                                                 observer: { events.append($0) })
        let result = try trainer.train(data: directory)
        let test = try XCTUnwrap(result.testMetrics)
        XCTAssertEqual(test.count, summary.counts["test"]!.values.reduce(0, +))
        XCTAssertGreaterThanOrEqual(test.accuracy, 0.95, "held-out photo crops:\n\(test.confusionMatrix)")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(result.validationMetrics).accuracy, 0.9)
        // The logistic regression ran to its optimum (converged before the iteration limit).
        XCTAssertLessThan(result.history.count, ImageClassifierTrainingConfiguration().effectiveMaximumIterations)
        XCTAssertTrue(events.contains { if case .note(let text) = $0 { return text.contains("converged after") } else { return false } })
        XCTAssertTrue(result.report.validationIsHeldOut)
        // Progress then per-iteration loss and accuracy were reported.
        XCTAssertTrue(events.contains { if case .iteration = $0 { return true } else { return false } })

        // The written model, evaluated by the evaluator on test/, gives the same accuracy.
        let url = directory.appendingPathComponent("crops.h5")
        try result.model.modelFile().write(to: url)
        let model = try ImageClassifierModel.read(from: url)
        let evaluation = try ImageClassifierEvaluator.evaluate(model: model, modelPath: url.path, backbone: backbone,
                                                               data: directory.appendingPathComponent("test"),
                                                               featureCache: ImageClassifierFixtures.featureCache)
        XCTAssertEqual(evaluation.metrics.confusionMatrix, test.confusionMatrix)
    }
}
