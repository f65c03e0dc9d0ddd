import CoachData
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// Real data: the UEA NATOPS arm signals (180 Kinect recordings, 6 classes, 8 joints × x, y, z,
/// 51 frames). The default recipe learns from three of every four recordings of each class (in
/// file order) and is scored on the fourth: 48 recordings it never saw, as a user's new data
/// arrives. (Cross-validation on these files once said 0.967 where unseen recordings gave 0.922,
/// so the floor is on a held-out split; `MPIPoseJobTests` holds out the same recordings.)
final class NATOPSActionClassifierTests: XCTestCase {
    func testUnseenRecordingsReachNinetyPercent() throws {
        let dataset = try PoseDataset.load(try SharedData.require("data/natops/train"))
        XCTAssertEqual(dataset.examples.count, 180)
        XCTAssertTrue(dataset.hasDepth)
        var seen: [String: Int] = [:], train: [Int] = [], test: [Int] = []
        for (index, label) in dataset.exampleLabels.enumerated() {
            let position = seen[label, default: 0]
            seen[label] = position + 1
            if position % 4 == 0 { test.append(index) } else { train.append(index) }
        }
        let result = try ActionClassifierTrainer(configuration: ActionClassifierTrainingConfiguration())
            .train(on: dataset, exampleIndices: train)
        let evaluation = try ActionClassifierEvaluation.evaluate(result.model, on: dataset, exampleIndices: test)
        XCTAssertEqual(evaluation.metrics.count, 48)
        print("NATOPS unseen recordings: accuracy \(String(format: "%.3f", evaluation.metrics.accuracy)) on \(evaluation.metrics.count); confusion \(evaluation.metrics.confusionMatrix)")
        // One recording is 2.1 points: 0.90 allows four mistakes in 48.
        XCTAssertGreaterThanOrEqual(evaluation.metrics.accuracy, 0.90)
    }
}
