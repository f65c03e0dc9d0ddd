import CoachData
import CoachModels
import CoachRandom
import CoachTraining
import Foundation

/// Accuracy and training time of hand-pose classifier variants (`--only hand-compare`): on the real
/// hand poses (Open / Close / Pointer; the last 25% of each class's rows, in file order, held out)
/// and on the generated hands (held-out hands; and trained on right hands only, tested on left
/// hands), over several seeds, so the defaults can be re-measured.
enum HandPoseComparison {
    struct Variant {
        var name: String
        var change: (inout HandPoseClassifierTrainingConfiguration) -> Void
    }

    static let augment: Set<PoseAugmentation> = [.rotate, .scale, .jitter]

    /// The variants, each a change to the default configuration (the graph network, trained on
    /// every pose for 80 iterations without a validation split).
    static let variants: [Variant] = [
        Variant(name: "graph") { _ in },
        Variant(name: "graph+augment") { $0.augmentations = augment },
        Variant(name: "graph-32-64-64") { $0.hiddenSizes = [32, 64, 64] },
        Variant(name: "graph 30-iterations") { $0.maximumIterations = 30 },
        Variant(name: "mlp") { $0.architecture = .multilayerPerceptron },
        Variant(name: "mlp+augment") { $0.architecture = .multilayerPerceptron; $0.augmentations = augment },
        Variant(name: "mlp+augment+flip") {
            $0.architecture = .multilayerPerceptron; $0.augmentations = augment.union([.horizontalFlip])
        },
        Variant(name: "mlp-128-64+augment") {
            $0.architecture = .multilayerPerceptron; $0.augmentations = augment; $0.hiddenSizes = [128, 64]
        },
        Variant(name: "mlp-256-128+augment") {
            $0.architecture = .multilayerPerceptron; $0.augmentations = augment; $0.hiddenSizes = [256, 128]
        },
        Variant(name: "mlp+augment upright") {
            $0.architecture = .multilayerPerceptron; $0.augmentations = augment; $0.rotation = .upright
        },
        Variant(name: "mlp+augment palm-scale") {
            $0.architecture = .multilayerPerceptron; $0.augmentations = augment; $0.scale = .palm
        },
        Variant(name: "mlp+augment block-validation") {
            $0.architecture = .multilayerPerceptron; $0.augmentations = augment; $0.validationFraction = 0.1
        },
        Variant(name: "mlp+augment random-validation") {
            $0.architecture = .multilayerPerceptron; $0.augmentations = augment; $0.validationFraction = 0.1
            $0.validationSplit = .random
        },
        Variant(name: "mlp+augment chirality-input") {
            $0.architecture = .multilayerPerceptron; $0.augmentations = augment; $0.chirality = .input
        },
        Variant(name: "mlp+augment chirality-ignore") {
            $0.architecture = .multilayerPerceptron; $0.augmentations = augment; $0.chirality = .ignore
        },
    ]

    /// The hand-action classifier's chirality handlings on generated hand clips (wave, grab, swipe
    /// outward, background): trained on all training clips, and on right hands only, then tested
    /// on held-out clips of other hands (all of them, and the left hands).
    static func runActions(seeds: [UInt64]) throws {
        print("== hand-action classifier chirality on generated clips (40 per class; 15 per class held out)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coach-bench-hand-actions-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let summary = try HandActionDatasetGenerator().generateSplits(into: folder, trainingClipsPerClass: 40,
                                                                      testClipsPerClass: 15, seed: 5)
        let training = try PoseDataset.load(summary.training.root), test = try PoseDataset.load(summary.test.root)
        let rightHands = training.examples.indices.filter { training.examples[$0].sequence.chirality == .right }
        let leftTest = test.examples.indices.filter { test.examples[$0].sequence.chirality == .left }
        for handling in ChiralityHandling.allCases {
            var all: [Double] = [], crossed: [Double] = []
            for seed in seeds {
                var configuration = ActionClassifierTrainingConfiguration()
                configuration.chirality = handling
                configuration.seed = seed
                let trainer = try ActionClassifierTrainer(configuration: configuration)
                all.append(try ActionClassifierEvaluation.evaluate(try trainer.train(on: training).model, on: test).metrics.accuracy)
                let model = try trainer.train(on: training, exampleIndices: rightHands).model
                crossed.append(try ActionClassifierEvaluation.evaluate(model, on: test, exampleIndices: leftTest).metrics.accuracy)
            }
            print("\(handling.rawValue): held-out clips \(format(all.reduce(0, +) / Double(all.count), 3)) · "
                  + "right→left \(format(crossed.reduce(0, +) / Double(crossed.count), 3)) [\(crossed.map { format($0, 3) }.joined(separator: " "))]")
        }
    }

    static func run(sharedPath: String, seeds: [UInt64], names: Set<String>?) throws {
        print("== hand-pose classifier variants: accuracy mean / min over seeds \(seeds), training seconds; augment = rotate,scale,jitter")
        let real = try SinglePoseSet.load(URL(fileURLWithPath: sharedPath + "/data/hand-gestures/hand-poses.csv"))
        let block = PoseDatasetSplit.block(labels: real.labels)
        let generator = HandPoseDatasetGenerator()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coach-bench-hands-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let summary = try generator.generateSplits(into: folder, trainingSamplesPerClass: 200, testSamplesPerClass: 50, seed: 2)
        let synthetic = try SinglePoseSet.load(summary.training.file)
        let syntheticTest = try SinglePoseSet.load(summary.test.file)
        let rightOnly = synthetic.poses.indices.filter { synthetic.poses[$0].chirality == .right }
        let leftTest = syntheticTest.poses.indices.filter { syntheticTest.poses[$0].chirality == .left }

        for variant in variants where names?.contains(variant.name) ?? true {
            var realScores: [Double] = [], syntheticScores: [Double] = [], crossScores: [Double] = []
            var seconds = 0.0, iterations = 0
            for seed in seeds {
                var configuration = HandPoseClassifierTrainingConfiguration()
                configuration.seed = seed
                variant.change(&configuration)
                let trainer = try HandPoseClassifierTrainer(configuration: configuration)
                let start = Timing.now()
                let result = try trainer.train(on: real, poseIndices: block.trainIndices)
                seconds += Timing.now() - start
                iterations += result.history.count
                realScores.append(try HandPoseClassifierEvaluation.evaluate(result.model, on: real, poseIndices: block.testIndices).metrics.accuracy)
                let model = try trainer.train(on: synthetic).model
                syntheticScores.append(try HandPoseClassifierEvaluation.evaluate(model, on: syntheticTest).metrics.accuracy)
                let crossModel = try trainer.train(on: synthetic, poseIndices: rightOnly).model
                crossScores.append(try HandPoseClassifierEvaluation.evaluate(crossModel, on: syntheticTest, poseIndices: leftTest).metrics.accuracy)
            }
            func stats(_ values: [Double]) -> String {
                "\(format(values.reduce(0, +) / Double(values.count), 3)) / \(format(values.min() ?? 0, 3))"
            }
            print("\(variant.name): real block \(stats(realScores)) [\(realScores.map { format($0, 3) }.joined(separator: " "))] "
                  + "(\(format(seconds / Double(seeds.count), 1)) s, \(iterations / seeds.count) iterations) · "
                  + "generated \(stats(syntheticScores)) · right→left \(stats(crossScores))")
        }
    }
}
