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

    /// The files record no person or session, but 36 clips start in a rest pose of their own
    /// (`startingPoseSplit`): most likely another person or session. Trained on the other 144, the
    /// default recipe is scored on those 36; trained on the 36 alone, on the 144. (aeon's
    /// MiniRocket and MultiRocket, seeds 0–2: 0.833 and 0.861 on the 36, 0.708 and 0.745 on the 144.)
    func testRecordingsOfAnotherRestPose() throws {
        let dataset = try PoseDataset.load(try SharedData.require("data/natops/train"))
        let split = try XCTUnwrap(dataset.startingPoseSplit())
        XCTAssertEqual(split.testIndices.count, 36)
        for (training, test, floor) in [(split.trainIndices, split.testIndices, 0.86), (split.testIndices, split.trainIndices, 0.80)] {
            let result = try ActionClassifierTrainer(configuration: ActionClassifierTrainingConfiguration())
                .train(on: dataset, exampleIndices: training)
            let evaluation = try ActionClassifierEvaluation.evaluate(result.model, on: dataset, exampleIndices: test)
            XCTAssertEqual(evaluation.metrics.count, test.count)
            print("NATOPS, another rest pose: trained on \(training.count), accuracy \(String(format: "%.3f", evaluation.metrics.accuracy)) on \(test.count)")
            // 0.86 of 36 allows five mistakes; 0.80 of 144, 28.
            XCTAssertGreaterThanOrEqual(evaluation.metrics.accuracy, floor)
        }
    }
}
