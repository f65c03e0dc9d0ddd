import CoachData
import CoachSamples
import CoachModels
import CoachRandom
import CoachTraining
import Foundation

/// Accuracy and training time of the action-classifier variants on the three real and generated
/// datasets the tests use (NATOPS 5-fold, fingertip block split, generated throws), so the
/// choice of default architecture and augmentations can be re-measured (`--only action-compare`).
enum ActionComparison {
    struct Variant {
        var name: String
        var architecture: ActionClassifierArchitecture.Kind
        var augmentations: Set<PoseAugmentation>
    }

    static let variants = [
        Variant(name: "temporal", architecture: .temporalConvolution, augmentations: []),
        Variant(name: "temporal+augment", architecture: .temporalConvolution,
                augmentations: [.rotate, .scale, .jitter, .interpolateFrames]),
        Variant(name: "graph", architecture: .graphConvolution, augmentations: []),
        Variant(name: "graph+augment", architecture: .graphConvolution,
                augmentations: [.rotate, .scale, .jitter, .interpolateFrames]),
    ]

    static func run(sharedPath: String, seeds: [UInt64]) throws {
        print("== action classifier variants (accuracy, training seconds); augment = rotate,scale,jitter,interpolate")
        let natops = try PoseDataset.load(URL(fileURLWithPath: sharedPath + "/data/natops/train"))
        let fingertips = try PoseDataset.load(URL(fileURLWithPath: sharedPath + "/data/hand-gestures/fingertip-tracks.csv"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coach-bench-throws-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let throwsSummary = try ThrowDatasetGenerator().generateSplits(into: folder, trainingClips: 120, testClips: 80, seed: 11)
        let throwsTraining = try PoseDataset.load(throwsSummary.training.annotationFile)
        let throwsTest = try PoseDataset.load(throwsSummary.test.annotationFile)
        var foldGenerator = SeededGenerator(seed: 7)
        let folds = PoseDatasetSplit.stratifiedFolds(labels: natops.exampleLabels, foldCount: 5, generator: &foldGenerator)
        let block = fingertips.blockSplit()

        for variant in variants {
            for seed in seeds {
                var configuration = ActionClassifierTrainingConfiguration()
                configuration.architecture = variant.architecture
                configuration.augmentations = variant.augmentations
                configuration.seed = seed
                var natopsAccuracy = 0.0
                var start = Timing.now()
                for fold in folds {
                    let result = try ActionClassifierTrainer(configuration: configuration).train(on: natops, exampleIndices: fold.trainIndices)
                    natopsAccuracy += try ActionClassifierEvaluation.evaluate(result.model, on: natops, exampleIndices: fold.testIndices)
                        .metrics.accuracy / Double(folds.count)
                }
                let natopsSeconds = Timing.now() - start

                var fingertipConfiguration = configuration
                fingertipConfiguration.windowLength = 16
                start = Timing.now()
                let fingertipModel = try ActionClassifierTrainer(configuration: fingertipConfiguration)
                    .train(on: fingertips, exampleIndices: block.trainIndices).model
                let fingertipSeconds = Timing.now() - start
                let fingertipAccuracy = try ActionClassifierEvaluation.evaluate(fingertipModel, on: fingertips,
                                                                                exampleIndices: block.testIndices).metrics.accuracy
                start = Timing.now()
                let throwsModel = try ActionClassifierTrainer(configuration: configuration).train(on: throwsTraining).model
                let throwsSeconds = Timing.now() - start
                let throwsAccuracy = try ActionClassifierEvaluation.evaluate(throwsModel, on: throwsTest).metrics.accuracy
                print("\(variant.name) seed \(seed): NATOPS 5-fold \(format(natopsAccuracy, 3)) (\(format(natopsSeconds, 1)) s) · "
                      + "fingertips \(format(fingertipAccuracy, 3)) (\(format(fingertipSeconds, 1)) s) · "
                      + "throws \(format(throwsAccuracy, 3)) (\(format(throwsSeconds, 1)) s)")
            }
        }
    }
}
