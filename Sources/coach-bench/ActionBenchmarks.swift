import CoachData
import CoachModels
import CoachRuntime
import CoachTraining
import Foundation

/// The action classifier: training time on NATOPS (all 180 clips, the issue's goal is under
/// 60 s on 2 cores) and the runtime's windows per second, single windows and batches.
enum ActionBenchmarks {
    static func run(sharedPath: String, threadCounts: [Int], seconds: Double) throws {
        print("== action classifier")
        let natops = URL(fileURLWithPath: sharedPath + "/data/natops/train")
        guard FileManager.default.fileExists(atPath: natops.path) else {
            print("action benchmark skipped: \(natops.path) is missing")
            return
        }
        let dataset = try PoseDataset.load(natops)
        var trained: ActionClassifierModel? = nil
        for threads in threadCounts {
            ComputeThreads.set(threads)
            for architecture in ActionClassifierArchitecture.Kind.allCases {
                var configuration = ActionClassifierTrainingConfiguration()
                configuration.architecture = architecture
                // Windows trained, over every ensemble member's phase.
                final class Counter: @unchecked Sendable { var windows: [String: Int] = [:] }
                let counter = Counter()
                let trainer = try ActionClassifierTrainer(configuration: configuration) { event in
                    if case let .progress(phase, completed, _, _, _) = event, phase.hasPrefix("training windows") {
                        counter.windows[phase] = completed
                    }
                }
                let start = Timing.now()
                let result = try trainer.train(on: dataset)
                let elapsed = Timing.now() - start
                let windows = counter.windows.values.reduce(0, +)
                let isDefault = architecture == ActionClassifierTrainingConfiguration().architectureKind(for: dataset.jointSet)
                print("train NATOPS (180 clips, \(architecture.rawValue)\(isDefault ? ", default" : "")) threads \(threads): "
                      + "\(format(elapsed, 1)) s, \(result.history.count) iterations, \(format(Double(windows) / elapsed, 0)) training windows/s, "
                      + "validation accuracy \(format((result.metrics["validation.accuracy"] ?? 0) * 100, 1))%")
                if isDefault { trained = result.model }
            }
        }
        guard let model = trained else { return }
        // Runtime: the trained NATOPS model (temporal network) and an untrained body18 throw-sized
        // graph network (the default for body poses).
        var generator = SeededGenerator(seed: 2)
        let body = ActionClassifierModel(labels: ["none", "overhand", "underhand", "underleg"], jointSet: .body18, frameRate: 30,
                                         encoding: ActionInputEncoding(windowLength: 45, jointCount: 18, includesDepth: false),
                                         architecture: .graphConvolution(for: SkeletonGraph(jointSet: .body18)), generator: &generator)
        for (name, runtimeModel) in [("NATOPS 45×8×xyz", model), ("body18 45×18×xy", body)] {
            let classifier = ActionClassifier(model: runtimeModel)
            let windows = (0..<64).map { n -> PoseWindow in
                var window = PoseWindow(frameCount: 45, jointCount: runtimeModel.jointSet.count,
                                        hasDepth: runtimeModel.encoding.includesDepth, startTime: Double(n))
                for t in 0..<45 { for j in 0..<window.jointCount {
                    window[t, j] = Keypoint(x: generator.nextUniform(), y: generator.nextUniform(),
                                            z: window.hasDepth ? generator.nextUniform() : nil, confidence: 0.9)
                } }
                return window
            }
            for threads in threadCounts {
                ComputeThreads.set(threads)
                let single = Timing.medianSeconds(samples: 5, sampleSeconds: seconds / 10) { _ = classifier.prediction(for: windows[0]) }
                let batch = Timing.medianSeconds(samples: 5, sampleSeconds: seconds / 10) { _ = classifier.predictions(for: windows) }
                print("runtime \(name) threads \(threads): \(format(1 / single, 0)) windows/s one at a time, "
                      + "\(format(64 / batch, 0)) windows/s in batches of 64")
            }
        }
    }
}
