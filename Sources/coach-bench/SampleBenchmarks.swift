import CoachData
import CoachSamples
import CoachTraining
import Foundation

/// The throw sample generator: how long the default `coach generate-samples --only throws` set
/// takes (`--only samples`), and a check of how a classifier trained on it treats real motion
/// of a person it never saw (`--only samples-realism`, which trains a model and so takes minutes).
enum SampleBenchmarks {
    /// Times generating the default throw set (240 training + 80 test clips), writing files and in memory.
    static func run() throws {
        print("== throw samples (CoachSamples): the default set, 240 training + 80 test clips")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coach-bench-samples-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let generator = ThrowDatasetGenerator()
        var start = Timing.now()
        let library = try generator.loadMotionCapture()
        let loadSeconds = Timing.now() - start
        var times: [Double] = []
        var frames = 0
        for _ in 0..<3 {
            try? FileManager.default.removeItem(at: folder)
            start = Timing.now()
            let (training, test) = try generator.generateSplits(into: folder, trainingClips: 240, testClips: 80, seed: 1)
            times.append(Timing.now() - start)
            frames = training.frameCount + test.frameCount
        }
        let median = times.sorted()[1]
        start = Timing.now()
        let clips = try generator.makeClips(clips: 320, seed: 1, motionCapture: library)
        let inMemory = Timing.now() - start
        print("generate-samples --only throws: \(format(median, 2)) s (median of 3; \(format(Double(320) / median, 0)) clips/s, "
              + "\(frames) frames written) · in memory \(format(inMemory, 2)) s for \(clips.count) clips · "
              + "motion capture load \(format(loadSeconds, 2)) s")
    }

    /// Trains the default action classifier on the default generated training split and reports
    /// how it labels the held-out generated test split and real motion capture of subject 06, whom
    /// the generator never shows (every such clip should be `none`).
    static func runRealism() throws {
        print("== throw samples realism: default classifier trained on generated throws")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coach-bench-realism-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let generator = ThrowDatasetGenerator()
        let (training, test) = try generator.generateSplits(into: folder, trainingClips: 240, testClips: 80, seed: 1)
        guard let library = try generator.loadMotionCapture() else { return }
        let check = try generator.generateMotionCaptureCheck(into: folder.appendingPathComponent("held-out"), subjects: [6],
                                                             clips: 60, seed: 99, motionCapture: library)
        var configuration = ActionClassifierTrainingConfiguration()
        configuration.seed = 0
        let start = Timing.now()
        let model = try ActionClassifierTrainer(configuration: configuration).train(on: PoseDataset.load(training.annotationFile)).model
        let seconds = Timing.now() - start
        let generated = try ActionClassifierEvaluation.evaluate(model, on: PoseDataset.load(test.annotationFile))
        let real = try ActionClassifierEvaluation.evaluate(model, on: PoseDataset.load(check.annotationFile))
        print("trained in \(format(seconds, 1)) s · generated test split (other people): accuracy \(format(generated.metrics.accuracy, 3)) "
              + "on \(generated.metrics.count) segments · held-out motion capture (subject 06, \(check.motionCaptureTrials.count) trials, "
              + "\(real.metrics.count) clips): called none \(format(real.metrics.accuracy, 3)); confusion \(real.metrics.confusionMatrix)")
    }
}
