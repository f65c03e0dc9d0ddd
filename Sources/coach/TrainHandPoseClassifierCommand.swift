import ArgumentParser
import CoachData
import CoachModels
import CoachTraining
import Foundation

/// `coach train hand-pose-classifier`: trains a classifier of single hand poses.
struct TrainHandPoseClassifierCommand: ParsableCommand, JobCommand {
    static let configuration = CommandConfiguration(
        commandName: "hand-pose-classifier",
        abstract: "Train a hand-pose classifier from labeled single hand poses (21 hand joints).",
        discussion: """
        The data is single poses (FORMATS.md §3.5), one row per pose:
          --data TABLE.csv      label,[chirality,]wrist_x,wrist_y,… (x, y, optional
                                _z and _confidence per joint; empty cell = missing)
          --data DIR            a folder per class of pose clips (CSV or JSON):
                                every frame is one pose of its folder's class

        Include a background class ('background', 'other', 'none' or
        'negative') of hand shapes that are none of your poses, so the model
        can say "no pose". Each pose is normalised inside the model: wrist at
        the origin, divided by the hand's size, left hands mirrored to right
        ones (--chirality mirror; 'input' gives the hand to the network
        instead, 'ignore' drops it). A dataset report comes first, then
        progress and one line per iteration. Training uses every pose for
        --max-iterations passes; --validation-fraction 0.1 holds out the last
        10% of each class's poses (poses from video are consecutive frames, so
        a random split would leak) and stops early on their loss.

        After every iteration a checkpoint is written next to the output
        (OUTPUT.checkpoint.h5); --resume continues an interrupted run. The
        same data, options and --seed give a byte-identical model file. Under
        mpirun (Open MPI) each minibatch is split among the ranks and their
        gradients summed in rank order: the same bytes every time for a given
        number of ranks, and those of one process for one rank.

        Augmentations (names for --augment, comma-separated):
          rotate       rotate poses by up to ±20° (poses with z also turn up to
                       ±20° about the vertical and the horizontal axis)
          scale        stretch x and y by up to ±15% each
          translate    shift poses (no effect: poses are wrist-relative)
          jitter       add keypoint noise (2% of the hand's size)
          flip         mirror left-right and flip chirality (only when a
                       mirrored pose keeps its label)

        Examples:
          coach train hand-pose-classifier --data hand-poses/train.csv \\
              --output hands.h5 --augment rotate,scale,jitter
          coach evaluate hands.h5 --data hand-poses/test.csv
          coach predict hands.h5 poses.csv
        """)

    @Option(help: "Labeled poses: a single-pose table CSV, or a folder per class of pose clips.")
    var data: String

    @Option(help: "Where to write the model file (.h5).")
    var output: String

    @Option(help: "Augmentations, comma-separated: rotate, scale, translate, jitter, flip; 'none'.")
    var augment: String = "none"

    @Option(help: "How chirality is used: mirror (left hands mirrored to right), input, or ignore.")
    var chirality: String = ChiralityHandling.mirrorLeftHands.rawValue

    @Option(help: "Network: graph-convolution (over the hand's skeleton) or mlp (multilayer perceptron, faster).")
    var architecture: String = HandPoseClassifierTrainingConfiguration.defaultArchitecture.rawValue

    @Option(help: "Pose rotation: none (the hand's angle matters) or upright (turned wrist-to-knuckles up).")
    var rotation: String = HandPoseClassifierTrainingConfiguration().rotation.rawValue

    @Option(parsing: .unconditional, help: "The most passes over the training poses (early stopping may end sooner).")
    var maxIterations: Int = HandPoseClassifierTrainingConfiguration().maximumIterations

    @Option(parsing: .unconditional, help: "Poses per gradient step.")
    var batchSize: Int = HandPoseClassifierTrainingConfiguration().batchSize

    @Option(parsing: .unconditional, help: "AdamW's peak learning rate.")
    var learningRate: Float = HandPoseClassifierTrainingConfiguration().learningRate

    @Option(parsing: .unconditional, help: "Fraction of each class held out for validation and early stopping (default 0: train on every pose).")
    var validationFraction: Double = HandPoseClassifierTrainingConfiguration().validationFraction

    @Option(help: "Validation poses: block (the last of each class, in file order) or random.")
    var validationSplit: String = HandPoseClassifierTrainingConfiguration().validationSplit.rawValue

    @Option(parsing: .unconditional, help: "Iterations without a lower validation loss before stopping.")
    var patience: Int = HandPoseClassifierTrainingConfiguration().earlyStoppingPatience

    @Option(help: "Origin of the files' coordinates: top-left (default) or bottom-left (Vision's).")
    var keypointOrigin: String = KeypointOrigin.topLeft.rawValue

    @Option(parsing: .unconditional, help: "Frames per second of clip files without a 'time' column.")
    var frameRate: Double = 30

    @Option(parsing: .unconditional, help: "The seed every random choice flows from.")
    var seed: UInt64 = 0

    @OptionGroup var media: PoseMediaOptions

    @Flag(help: "Replace a file at --output that is not a model of this kind (refused otherwise, so data is never overwritten).")
    var overwrite = false

    @Flag(help: "Continue an interrupted run from OUTPUT's checkpoint (same data and options).")
    var resume = false

    @Flag(help: "Print only the report, warnings and the result (no progress lines).")
    var quiet = false

    /// The augmentations that act on single poses.
    static let poseAugmentations: [PoseAugmentation] = [.rotate, .scale, .translate, .jitter, .horizontalFlip]

    func validate() throws {
        try IncompleteSampleSet.check(data, option: "--data")
        let parsed = PoseAugmentation.parseList(augment)
        if !parsed.unknown.isEmpty {
            throw ValidationError("unknown augmentation\(parsed.unknown.count == 1 ? "" : "s") \(parsed.unknown.map { "'\($0)'" }.joined(separator: ", ")) in --augment; choose from \(Self.poseAugmentations.map(\.rawValue).joined(separator: ", ")), none")
        }
        let temporal = parsed.augmentations.subtracting(Self.poseAugmentations)
        if !temporal.isEmpty {
            throw ValidationError("\(temporal.sorted().map(\.rawValue).joined(separator: ", ")) act\(temporal.count == 1 ? "s" : "") on time and cannot augment single poses; choose from \(Self.poseAugmentations.map(\.rawValue).joined(separator: ", "))")
        }
        if ChiralityHandling(name: chirality) == nil {
            throw ValidationError("--chirality must be mirror, input or ignore, not '\(chirality)'")
        }
        if HandPoseClassifierArchitecture.Kind(rawValue: architecture) == nil {
            throw ValidationError("--architecture must be \(HandPoseClassifierArchitecture.Kind.allCases.map(\.rawValue).joined(separator: " or ")), not '\(architecture)'")
        }
        if HandPoseInputEncoding.Rotation(rawValue: rotation) == nil {
            throw ValidationError("--rotation must be none or upright, not '\(rotation)'")
        }
        if HandPoseClassifierTrainingConfiguration.ValidationSplit(rawValue: validationSplit) == nil {
            throw ValidationError("--validation-split must be block or random, not '\(validationSplit)'")
        }
        if KeypointOrigin(rawValue: keypointOrigin) == nil {
            throw ValidationError("--keypoint-origin must be top-left or bottom-left, not '\(keypointOrigin)'")
        }
        if let problem = PoseLimits.frameRateProblem(frameRate) { throw ValidationError("--frame-rate \(problem)") }
        if output.isEmpty { throw ValidationError("--output must name a file") }
    }

    func run() throws {
        try reportingErrors {
            let job = try Job.start()
            try OutputGuard.checkModelOutput(output, task: .handPoseClassifier, overwrite: overwrite, inputs: [data],
                                             dataFolders: [data, OutputGuard.folder(of: data)])
            var configuration = HandPoseClassifierTrainingConfiguration()
            configuration.augmentations = PoseAugmentation.parseList(augment).augmentations
            configuration.chirality = ChiralityHandling(name: chirality) ?? .mirrorLeftHands
            configuration.architecture = HandPoseClassifierArchitecture.Kind(rawValue: architecture)
            configuration.rotation = HandPoseInputEncoding.Rotation(rawValue: rotation) ?? .none
            configuration.maximumIterations = maxIterations
            configuration.batchSize = batchSize
            configuration.learningRate = learningRate
            configuration.validationFraction = validationFraction
            configuration.validationSplit = HandPoseClassifierTrainingConfiguration.ValidationSplit(rawValue: validationSplit) ?? .block
            configuration.earlyStoppingPatience = patience
            configuration.seed = seed
            var trainer = try HandPoseClassifierTrainer(configuration: configuration,
                                                        observer: job.isRoot ? Console.observer(quiet: quiet) : nil)
            trainer.communicator = job

            let options = try media.attach(to: PoseReadingOptions(frameRate: frameRate, keypointOrigin: KeypointOrigin(rawValue: keypointOrigin) ?? .topLeft),
                                           joints: .hand21)
            let set = try SharedMediaPoses.load(options, job: job) { try SinglePoseSet.load(URL(fileURLWithPath: data), options: $0) }
            HandPoseReport.printSummary(SinglePoseSetSummary(set: set))
            let network = configuration.networkArchitecture
            Console.note("network: \(network.kind.rawValue) (\(network.hiddenSizes.map(String.init).joined(separator: ", ")) \(network.kind == .graphConvolution ? "channels" : "units")); chirality: \(configuration.chirality.rawValue); rotation: \(configuration.rotation.rawValue)")

            let outputURL = URL(fileURLWithPath: output)
            try FileManager.default.createDirectory(at: outputURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            let checkpoint = HandPoseClassifierTrainer.checkpointURL(for: outputURL)
            try OutputGuard.checkCheckpoint(checkpoint)
            let start = Date()
            let result = try trainer.train(on: set, checkpoint: checkpoint, resume: resume)
            guard job.isRoot else { return }
            try ActionTrainingOptions.write(result, to: outputURL, removing: [checkpoint], seconds: Date().timeIntervalSince(start))
        }
    }
}
