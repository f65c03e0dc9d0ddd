import CoachData
import CoachModels
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// The hand-pose trainer on generated hands: chirality, resume, determinism, reports and errors.
final class HandPoseClassifierTrainerTests: XCTestCase {
    /// Generated train and test poses (open, fist, one, peace, background; half of them left hands).
    func generatedHands(training: Int = 100, test: Int = 40) throws -> (SinglePoseSet, SinglePoseSet) {
        let directory = try temporaryDirectory(self)
        let files = try HandPoseDatasetGenerator().generateSplits(into: directory, trainingSamplesPerClass: training,
                                                                  testSamplesPerClass: test, seed: 21)
        return (try SinglePoseSet.load(files.training.file), try SinglePoseSet.load(files.test.file))
    }

    func testRightHandsTeachLeftHandsWhenMirrored() throws {
        let (training, test) = try generatedHands()
        let rightHands = training.poses.indices.filter { training.poses[$0].chirality == .right }
        let leftHands = test.poses.indices.filter { test.poses[$0].chirality == .left }
        XCTAssertGreaterThan(rightHands.count, 200)
        var accuracies: [ChiralityHandling: Double] = [:]
        for handling in [ChiralityHandling.mirrorLeftHands, .input] {
            var configuration = HandPoseClassifierTrainingConfiguration()
            configuration.chirality = handling
            configuration.maximumIterations = 40
            configuration.seed = 2
            let model = try HandPoseClassifierTrainer(configuration: configuration).train(on: training, poseIndices: rightHands).model
            accuracies[handling] = try HandPoseClassifierEvaluation.evaluate(model, on: test, poseIndices: leftHands).metrics.accuracy
        }
        print("trained on right hands, tested on left hands: mirror \(accuracies[.mirrorLeftHands]!), input \(accuracies[.input]!)")
        XCTAssertGreaterThanOrEqual(accuracies[.mirrorLeftHands]!, 0.9, "mirrored left hands look like the right hands trained on")
        XCTAssertLessThan(accuracies[.input]!, accuracies[.mirrorLeftHands]! - 0.3,
                          "told it is a left hand, a network that never saw one cannot place it")
    }

    func testResumingGivesTheUninterruptedModelAndSeedsAreDeterministic() throws {
        let (training, _) = try generatedHands(training: 30, test: 1)
        let directory = try temporaryDirectory(self)
        var configuration = HandPoseClassifierTrainingConfiguration()
        configuration.maximumIterations = 4
        configuration.validationFraction = 0.2
        configuration.augmentations = [.rotate, .jitter, .horizontalFlip]
        configuration.seed = 8
        let trainer = try HandPoseClassifierTrainer(configuration: configuration)
        let whole = try trainer.train(on: training)
        let again = try trainer.train(on: training)
        XCTAssertEqual(whole.model.network.stateDictionary, again.model.network.stateDictionary, "the same seed gives the same weights")
        XCTAssertEqual(try whole.modelFile(name: "m").tensors, try again.modelFile(name: "m").tensors)

        let checkpoint = directory.appendingPathComponent("m.checkpoint.h5")
        XCTAssertEqual(HandPoseClassifierTrainer.checkpointURL(for: directory.appendingPathComponent("m.h5")), checkpoint)
        let first = try trainer.train(on: training, checkpoint: checkpoint, shouldContinue: { $0 < 2 })
        XCTAssertTrue(first.interrupted)
        XCTAssertEqual(first.history.count, 2)
        let resumed = try trainer.train(on: training, checkpoint: checkpoint, resume: true)
        XCTAssertEqual(resumed.history.count, 4)
        XCTAssertEqual(resumed.model.network.stateDictionary, whole.model.network.stateDictionary,
                       "a resumed run ends with the uninterrupted run's weights")
        XCTAssertEqual(resumed.bestIteration, whole.bestIteration)

        var other = configuration
        other.seed = 9
        XCTAssertThrowsError(try HandPoseClassifierTrainer(configuration: other).train(on: training, checkpoint: checkpoint, resume: true)) { error in
            XCTAssertTrue((error as? LocalizedError)?.errorDescription?.contains("different options (seed)") ?? false, "\(error)")
        }
        XCTAssertNotEqual(try HandPoseClassifierTrainer(configuration: other).train(on: training).model.network.stateDictionary,
                          whole.model.network.stateDictionary)
    }

    func testReportsAndErrors() throws {
        let (training, _) = try generatedHands(training: 12, test: 1)
        let summary = SinglePoseSetSummary(set: training)
        XCTAssertEqual(summary.backgroundLabel, "background")
        XCTAssertEqual(summary.poseCount, 60)
        XCTAssertEqual(summary.classes.map(\.poses), [12, 12, 12, 12, 12])
        XCTAssertEqual(summary.classes.reduce(0) { $0 + $1.leftHands + $1.rightHands }, 60)
        XCTAssertTrue(summary.warnings.isEmpty, "\(summary.warnings)")
        let withoutBackground = training.poses.indices.filter { training.poses[$0].label != "background" }
        let warnings = SinglePoseSetSummary(set: training, poseIndices: withoutBackground).warnings
        XCTAssertTrue(warnings.contains { $0.hasPrefix("no background class") }, "\(warnings)")

        let fists = training.poses.indices.filter { training.poses[$0].label == "fist" }
        XCTAssertThrowsError(try HandPoseClassifierTrainer(configuration: .init()).train(on: training, poseIndices: fists)) { error in
            XCTAssertEqual(error as? HandPoseTrainingError, .tooFewClasses(found: ["fist"]))
        }
        // Poses with no detected joint: a warning for some, an error when every one is empty
        // (issue 14: training and evaluation went ahead on nothing).
        var emptied = training
        for index in emptied.poses.indices where index % 3 == 0 {
            emptied.poses[index].keypoints = emptied.poses[index].keypoints.map { _ in nil }
        }
        XCTAssertEqual(SinglePoseSetSummary(set: emptied).emptyPoses, 20)
        XCTAssertTrue(SinglePoseSetSummary(set: emptied).warnings.contains { $0.hasPrefix("20 of the 60 poses have no detected joint") })
        for index in emptied.poses.indices {
            emptied.poses[index].keypoints = emptied.poses[index].keypoints.map { $0.map { Keypoint(x: $0.x, y: $0.y, confidence: 0) } }
        }
        XCTAssertThrowsError(try HandPoseClassifierTrainer(configuration: .init()).train(on: emptied)) { error in
            XCTAssertEqual(error as? HandPoseTrainingError, .noDetectedJoints(poses: 60))
        }

        var bad = HandPoseClassifierTrainingConfiguration()
        bad.maximumIterations = 0
        bad.dropout = 1
        XCTAssertThrowsError(try HandPoseClassifierTrainer(configuration: bad)) { error in
            guard case .invalidConfiguration(let problems)? = error as? HandPoseTrainingError else { return XCTFail("\(error)") }
            XCTAssertEqual(problems.count, 2)
        }
        var quick = HandPoseClassifierTrainingConfiguration()
        quick.maximumIterations = 1
        let opens = training.poses.indices.filter { training.poses[$0].label == "open" }
        let model = try HandPoseClassifierTrainer(configuration: quick).train(on: training, poseIndices: fists + opens).model
        XCTAssertThrowsError(try HandPoseClassifierEvaluation.evaluate(model, on: training)) { error in
            XCTAssertEqual(error as? HandPoseTrainingError, .unknownLabels(["background", "one", "peace"], modelLabels: ["fist", "open"]))
        }
    }
}
