import CoachData
import CoachModels
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// Validation clips of the user's own (`--validation-data`): other people or sessions judge early
/// stopping and the head's share, and every training clip trains.
final class ActionValidationDataTests: XCTestCase {
    let dataset = toyActionDataset(clipsPerClass: 12, seed: 3)
    let validation = toyActionDataset(clipsPerClass: 5, seed: 41)

    func testTheGivenClipsAreTheValidationAndEveryTrainingClipTrains() throws {
        let configuration = toyConfiguration(iterations: 5)
        let examples = try validation.examples(conformingTo: dataset)
        XCTAssertEqual(examples.count, 15)
        let result = try ActionClassifierTrainer(configuration: configuration).train(on: dataset, validationExamples: examples)
        XCTAssertEqual(result.trainingCount, 36, "no training clip is held out")
        XCTAssertEqual(result.validationCount, 15)
        XCTAssertEqual(result.configuration.validationSegments, 15, "the model file records them")
        // The reported validation accuracy is the finished model's on exactly those clips, scored
        // independently by the evaluator (windows every quarter window, the mean per segment).
        let evaluation = try ActionClassifierEvaluation.evaluate(result.model, on: validation)
        XCTAssertEqual(try XCTUnwrap(result.metrics["validation.accuracy"]), evaluation.metrics.accuracy, accuracy: 1e-9)
        // Without them, a fraction of the training clips is held out instead.
        let plain = try ActionClassifierTrainer(configuration: configuration).train(on: dataset)
        XCTAssertEqual(plain.trainingCount + plain.validationCount, 36)
        XCTAssertNil(plain.configuration.validationSegments)
        XCTAssertGreaterThan(plain.validationCount, 0)
    }

    func testAnEnsembleJudgesEveryMemberOnTheSameClipsAndResumeNoticesOtherOnes() throws {
        let directory = try temporaryDirectory(self)
        var configuration = toyConfiguration(iterations: 3)
        configuration.ensembleMembers = 2
        let examples = try validation.examples(conformingTo: dataset)
        let result = try ActionClassifierTrainer(configuration: configuration).train(on: dataset, validationExamples: examples)
        XCTAssertEqual(result.model.members.count, 2)
        XCTAssertEqual(result.validationCount, 15)
        // Both members validated on the same 15 clips, so the pooled loss is their mean.
        XCTAssertNotNil(result.metrics["validation.pooledLoss"])

        let checkpoint = directory.appendingPathComponent("run.checkpoint.h5")
        var single = configuration
        single.ensembleMembers = 1
        _ = try ActionClassifierTrainer(configuration: single).train(on: dataset, validationExamples: examples, checkpoint: checkpoint,
                                                                     shouldContinue: { _ in false })
        let others = try toyActionDataset(clipsPerClass: 5, seed: 42).examples(conformingTo: dataset)
        XCTAssertThrowsError(try ActionClassifierTrainer(configuration: single).train(on: dataset, validationExamples: others,
                                                                                      checkpoint: checkpoint, resume: true)) { error in
            XCTAssertEqual(error as? ActionTrainingError, .checkpointMismatch(path: checkpoint.path, reason: "it was made from different data"))
        }
        let resumed = try ActionClassifierTrainer(configuration: single).train(on: dataset, validationExamples: examples,
                                                                               checkpoint: checkpoint, resume: true)
        XCTAssertEqual(resumed.validationCount, 15)
    }

    /// Clips of another joint set and labels the training data lacks are all listed, by file.
    func testValidationClipsThatDoNotFitAreAllListed() throws {
        let mixed = toyActionDataset(clipsPerClass: 2, seed: 5, classes: ["circle", "wave"])
        let renamed = JointSet(names: ["hand", "elbowMarker", "wristMarker"])!
        let clips = mixed.clips.map { clip -> LabeledPoseClip in
            var sequence = clip.sequence
            sequence.jointSet = renamed
            return LabeledPoseClip(sequence: sequence, segments: clip.segments)
        }
        let other = PoseDataset(jointSet: renamed, hasDepth: false, clips: clips)
        XCTAssertThrowsError(try other.examples(conformingTo: dataset)) { error in
            let problems = (error as? PoseDataError)?.problems.map(\.description) ?? []
            XCTAssertEqual(problems.filter { $0.contains("has the joints hand, elbowMarker, wristMarker: expected the 3 joints hand, elbowMarker, shoulderMarker") }.count,
                           2, "one per circle clip: \(problems)")
            XCTAssertEqual(problems.filter { $0.contains("label 'wave' (2 validation segments) is not a class of the training data (circle, other, swipe)") }.count,
                           1, "\(problems)")
        }
        XCTAssertThrowsError(try ActionClassifierTrainer(configuration: toyConfiguration(iterations: 1))
            .train(on: dataset, validationExamples: mixed.examples)) { error in
            XCTAssertEqual(error as? ActionTrainingError, .unknownLabels(["wave"], modelLabels: ["circle", "other", "swipe"]))
        }
    }
}
