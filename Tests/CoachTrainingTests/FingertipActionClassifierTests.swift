import CoachData
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// Real data: 5,296 index-fingertip tracks (one custom joint, 16 frames, 4 gestures) from
/// consecutive video; the last 25% of each class's sequences in file order are the test set, so
/// near-duplicate neighbouring tracks cannot leak between training and test.
final class FingertipActionClassifierTests: XCTestCase {
    func testBlockSplitReachesNinetyThreePercent() throws {
        let dataset = try PoseDataset.load(try SharedData.require("data/hand-gestures/fingertip-tracks.csv"))
        XCTAssertEqual(dataset.jointSet.names, ["indexTip"])
        let split = dataset.blockSplit()
        var configuration = ActionClassifierTrainingConfiguration()
        configuration.windowLength = 16
        // One member keeps the suite inside CI's time (the NATOPS and throw floors train the default
        // two); the bench measures both on this split.
        configuration.ensembleMembers = 1
        let result = try ActionClassifierTrainer(configuration: configuration).train(on: dataset, exampleIndices: split.trainIndices)
        let evaluation = try ActionClassifierEvaluation.evaluate(result.model, on: dataset, exampleIndices: split.testIndices)
        print("fingertip block split: accuracy \(String(format: "%.3f", evaluation.metrics.accuracy)) on \(evaluation.metrics.count) tracks, \(result.history.count) iterations")
        XCTAssertEqual(evaluation.windowCount, split.testIndices.count, "one 16-frame window per 16-frame track")
        XCTAssertGreaterThanOrEqual(evaluation.metrics.accuracy, 0.93)
    }
}
