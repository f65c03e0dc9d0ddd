import CoachData
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// The generated throw dataset (body18 stick figures throwing overhand, underhand and under the
/// leg among background actions): trained on one generated split, tested on a held-out split of
/// other people, scored per annotated segment.
final class SyntheticThrowActionClassifierTests: XCTestCase {
    func testHeldOutThrowsReachNinetyFivePercent() throws {
        let directory = try temporaryDirectory(self)
        let summary = try ThrowDatasetGenerator().generateSplits(into: directory, trainingClips: 100, testClips: 60, seed: 11)
        let training = try PoseDataset.load(summary.training.annotationFile)
        let test = try PoseDataset.load(summary.test.annotationFile)
        XCTAssertEqual(training.jointSet, .body18)
        let report = ActionDatasetSummary(dataset: training, sampler: PoseWindowSampler())
        XCTAssertEqual(report.backgroundLabel, "none")
        let result = try ActionClassifierTrainer(configuration: ActionClassifierTrainingConfiguration()).train(on: training)
        let evaluation = try ActionClassifierEvaluation.evaluate(result.model, on: test)
        print("synthetic throws: accuracy \(String(format: "%.3f", evaluation.metrics.accuracy)) on \(evaluation.metrics.count) segments, windows \(String(format: "%.3f", evaluation.windowAccuracy)); confusion \(evaluation.metrics.confusionMatrix)")
        XCTAssertEqual(evaluation.metrics.classes, ["none", "overhand", "underhand", "underleg"])
        XCTAssertGreaterThanOrEqual(evaluation.metrics.accuracy, 0.95)
    }
}
