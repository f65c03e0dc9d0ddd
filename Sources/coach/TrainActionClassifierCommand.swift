import ArgumentParser
import CoachData
import CoachModels
import CoachTraining
import Foundation

/// `coach train action-classifier`: trains a body- or hand-pose action classifier.
struct TrainActionClassifierCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "action-classifier",
        abstract: "Train an action classifier from labeled pose sequences (body, hand or custom joints).",
        discussion: """
        The data is pose clips (FORMATS.md §3), labeled in one of three ways:
          --data DIR            a folder per class: DIR/<label>/<clip>.csv|json
          --data TABLE.csv      one table with 'sequence' and 'label' columns
          --annotations FILE    Create ML action annotations (CSV with
                                file,label,start,end, or JSON); a clip may
                                have several labeled segments

        Training cuts windows of --prediction-window frames (after resampling
        to --frame-rate) from within each labeled segment. A segment shorter
        than the window is padded with zero poses, as Apple's Action & Vision
        app does. Include a background class ('other', 'none', 'background' or
        'negative') of ordinary movement so the model can say "none of these".
        A dataset report comes first, then progress (windows/s, ETA) and one
        line per iteration; early stopping keeps the best validation weights.

        After every iteration a checkpoint is written next to the output
        (OUTPUT.checkpoint.h5). If training is interrupted, run the same
        command with --resume to continue exactly where it stopped. The same
        data, options and --seed give a byte-identical model file.

        Augmentations (names for --augment, comma-separated, or 'all'):
          flip         mirror left-right, swapping left and right joints
                       (only when mirrored actions keep their label)
          rotate       rotate poses by up to ±15°
          translate    shift poses, drifting across the window (camera pan)
          scale        stretch x and y by up to ±15% each
          jitter       add keypoint noise (2% of the pose's size)
          interpolate  play motions 0.8–1.25× as fast (time warp)
          drop         skip random frames (a detector missing frames)

        Examples:
          coach train action-classifier --annotations throws/annotations.csv \\
              --output throws.h5 --augment flip,interpolate
          coach train action-classifier --data natops/train --output natops.h5
          coach train action-classifier --data fingertips.csv \\
              --prediction-window 16 --output gestures.h5
          coach train action-classifier --annotations throws/annotations.csv \\
              --output throws.h5 --resume
        """)

    @Option(help: "Labeled pose data: a folder per class, or a table CSV with 'sequence' and 'label' columns.")
    var data: String?

    @Option(help: "A Create ML action annotation file (CSV or JSON) naming clips, labels and segments.")
    var annotations: String?

    @Option(help: "Where to write the model file (.h5).")
    var output: String

    @Option(help: "Frames per window the model classifies (Create ML's prediction window).")
    var predictionWindow: Int = 45

    @Option(help: "Frames per second: clips are resampled to it, and files without a 'time' column are read at it.")
    var frameRate: Double = 30

    @Option(help: "Origin of the files' coordinates: top-left (default) or bottom-left (Vision's).")
    var keypointOrigin: String = KeypointOrigin.topLeft.rawValue

    @Option(help: "Augmentations, comma-separated: flip, rotate, translate, scale, jitter, interpolate, drop; 'all' or 'none'.")
    var augment: String = "none"

    @Option(help: "The most passes over the training windows (early stopping may end sooner).")
    var maxIterations: Int = ActionClassifierTrainingConfiguration().maximumIterations

    @Option(help: "Windows per gradient step.")
    var batchSize: Int = ActionClassifierTrainingConfiguration().batchSize

    @Option(help: "AdamW's peak learning rate.")
    var learningRate: Float = ActionClassifierTrainingConfiguration().learningRate

    @Option(help: "Fraction of each class held out for validation and early stopping (0 turns both off).")
    var validationFraction: Double = ActionClassifierTrainingConfiguration().validationFraction

    @Option(help: "Iterations without a better validation score before stopping.")
    var patience: Int = ActionClassifierTrainingConfiguration().earlyStoppingPatience

    @Option(help: "Network: auto (graph for body18/hand21, temporal for custom joints), graph-convolution (ST-GCN) or temporal-convolution.")
    var architecture: String = "auto"

    @Option(help: "The seed every random choice flows from.")
    var seed: UInt64 = 0

    @Flag(help: "Continue an interrupted run from OUTPUT's checkpoint (same data and options).")
    var resume = false

    @Flag(help: "Print only the report, warnings and the result (no progress lines).")
    var quiet = false

    func validate() throws {
        if (data == nil) == (annotations == nil) {
            throw ValidationError("give the labeled data with exactly one of --data DIR|TABLE.csv or --annotations FILE")
        }
        if predictionWindow < 1 { throw ValidationError("--prediction-window must be at least 1 frame") }
        if !(frameRate > 0) || !frameRate.isFinite { throw ValidationError("--frame-rate must be a positive number") }
        if KeypointOrigin(rawValue: keypointOrigin) == nil {
            throw ValidationError("--keypoint-origin must be top-left or bottom-left, not '\(keypointOrigin)'")
        }
        let parsed = PoseAugmentation.parseList(augment)
        if !parsed.unknown.isEmpty {
            throw ValidationError("unknown augmentation\(parsed.unknown.count == 1 ? "" : "s") \(parsed.unknown.map { "'\($0)'" }.joined(separator: ", ")) in --augment; choose from \(PoseAugmentation.allCases.map(\.rawValue).joined(separator: ", ")), all, none")
        }
        if architecture != "auto" && ActionClassifierArchitecture.Kind(rawValue: architecture) == nil {
            throw ValidationError("--architecture must be auto, \(ActionClassifierArchitecture.Kind.allCases.map(\.rawValue).joined(separator: " or ")), not '\(architecture)'")
        }
        if output.isEmpty { throw ValidationError("--output must name a file") }
    }

    func run() throws {
        try reportingErrors {
            var configuration = ActionClassifierTrainingConfiguration()
            configuration.windowLength = predictionWindow
            configuration.frameRate = frameRate
            configuration.augmentations = PoseAugmentation.parseList(augment).augmentations
            configuration.maximumIterations = maxIterations
            configuration.batchSize = batchSize
            configuration.learningRate = learningRate
            configuration.validationFraction = validationFraction
            configuration.earlyStoppingPatience = patience
            configuration.architecture = ActionClassifierArchitecture.Kind(rawValue: architecture)
            configuration.seed = seed
            let trainer = try ActionClassifierTrainer(configuration: configuration, observer: Console.observer(quiet: quiet))

            let options = PoseReadingOptions(frameRate: frameRate, keypointOrigin: KeypointOrigin(rawValue: keypointOrigin) ?? .topLeft)
            let source = URL(fileURLWithPath: data ?? annotations ?? "")
            let dataset = data != nil ? try PoseDataset.load(source, options: options)
                                      : try PoseDataset.loadAnnotations(source, options: options)
            let summary = ActionDatasetSummary(dataset: dataset, sampler: trainer.sampler)
            ActionClassifierReport.printSummary(summary, ignoredFiles: dataset.ignoredFiles.count)
            let network = configuration.networkArchitecture(for: dataset.jointSet)
            Console.note("network: \(network.kind.rawValue) (blocks of \(network.channels.map(String.init).joined(separator: ", ")) channels)\(configuration.architecture == nil ? ", chosen for \(dataset.jointSet.kind == .custom ? "custom joints" : dataset.jointSet.kind.rawValue)" : "")")

            let outputURL = URL(fileURLWithPath: output)
            try FileManager.default.createDirectory(at: outputURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            let checkpoint = ActionClassifierTrainer.checkpointURL(for: outputURL)
            let result = try trainer.train(on: dataset, checkpoint: checkpoint, resume: resume)
            let file = try result.modelFile(name: outputURL.deletingPathExtension().lastPathComponent)
            try file.write(to: outputURL)
            try? FileManager.default.removeItem(at: checkpoint)

            var line = "wrote \(output): \(result.model.labels.count) classes, \(file.parameterCount) parameters, \(result.history.count) iteration\(result.history.count == 1 ? "" : "s")"
            if let accuracy = result.metrics["validation.accuracy"] {
                line += ", validation accuracy \(Console.percent(accuracy)) on \(result.validationExampleCount) examples"
                if let best = result.bestIteration { line += " (iteration \(best))" }
            } else if let accuracy = result.metrics["training.accuracy"] {
                line += ", training accuracy \(Console.percent(accuracy))"
            }
            Console.print(line)
        }
    }
}
