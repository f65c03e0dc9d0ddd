import CoachData
import CoachRandom
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// Real data: the UEA NATOPS arm signals (180 Kinect recordings, 6 classes, 8 joints × x, y, z,
/// 51 frames), 5-fold stratified cross-validation with the default recipe.
final class NATOPSActionClassifierTests: XCTestCase {
    func testFiveFoldCrossValidationReachesNinetyPercent() throws {
        let dataset = try PoseDataset.load(try SharedData.require("data/natops/train"))
        XCTAssertEqual(dataset.examples.count, 180)
        XCTAssertTrue(dataset.hasDepth)
        var generator = SeededGenerator(seed: 7)
        let folds = PoseDatasetSplit.stratifiedFolds(labels: dataset.exampleLabels, foldCount: 5, generator: &generator)
        let trainer = try ActionClassifierTrainer(configuration: ActionClassifierTrainingConfiguration())
        var accuracies: [Double] = []
        for fold in folds {
            let result = try trainer.train(on: dataset, exampleIndices: fold.trainIndices)
            let evaluation = try ActionClassifierEvaluation.evaluate(result.model, on: dataset, exampleIndices: fold.testIndices)
            XCTAssertEqual(evaluation.metrics.count, 36)
            accuracies.append(evaluation.metrics.accuracy)
        }
        let mean = accuracies.reduce(0, +) / Double(accuracies.count)
        print("NATOPS 5-fold accuracy: \(accuracies.map { String(format: "%.3f", $0) }.joined(separator: " ")) mean \(String(format: "%.3f", mean))")
        XCTAssertGreaterThanOrEqual(mean, 0.90, "folds: \(accuracies)")
    }
}
