import ArgumentParser
import CoachData
import CoachModels
import CoachTraining
import Foundation

/// The options of `coach train action-classifier` and `coach train hand-action-classifier`, and
/// the training they run.
struct ActionTrainingOptions: ParsableArguments {
    @Option(help: "Labeled pose data: a folder per class, a folder of train/ and validation/ and/or test/ splits of such folders, or a table CSV with 'sequence' and 'label' columns.")
    var data: String?

    @Option(help: "A Create ML action annotation file (CSV or JSON) naming clips, labels and segments.")
    var annotations: String?

    // `--validation` too, as `coach train image-classifier` spells it.
    @Option(name: [.customLong("validation-data"), .customLong("validation")], help: ArgumentHelp(
        "Validation clips of their own, read like --data (a folder per class or a table CSV); best recorded from other people or sessions than the training clips.",
        discussion: "Early stopping and the random-convolution head's share are then judged on them, as on the new people a model will meet, and every training clip trains (--validation-fraction is not used). Their classes must be among the training data's. Without it, a validation/ split of --data is used, else a fraction of each class's training clips is held out. --validation is the same option, as the image classifier spells it."))
    var validationData: String?

    @Option(help: "Validation clips as a Create ML action annotation file (CSV or JSON), read like --annotations.")
    var validationAnnotations: String?

    @Option(help: "Where to write the model file (.h5).")
    var output: String

    @Option(parsing: .unconditional, help: "Frames per window the model classifies (Create ML's prediction window).")
    var predictionWindow: Int = 45

    @Option(parsing: .unconditional, help: "Frames per second: clips are resampled to it, and files without a 'time' column are read at it.")
    var frameRate: Double = 30

    @Option(help: "Origin of the files' coordinates: top-left (default) or bottom-left (Vision's).")
    var keypointOrigin: String = KeypointOrigin.topLeft.rawValue

    @Option(help: "Augmentations, comma-separated: flip, rotate, translate, scale, jitter, interpolate, drop, occlude, proportions; 'all', 'none', or 'default' (interpolate,drop,jitter,scale,rotate,occlude: the ones that keep every action's label; occlude hides joints in about four times as many windows as the data's own detector misses them, none when it misses none).")
    var augment: String = "default"

    @Option(parsing: .unconditional, help: "The most passes over the training windows (early stopping may end sooner).")
    var maxIterations: Int = ActionClassifierTrainingConfiguration().maximumIterations

    @Option(parsing: .unconditional, help: "Windows per gradient step.")
    var batchSize: Int = ActionClassifierTrainingConfiguration().batchSize

    @Option(parsing: .unconditional, help: "AdamW's peak learning rate.")
    var learningRate: Float = ActionClassifierTrainingConfiguration().learningRate

    @Option(parsing: .unconditional, help: "Fraction of each class held out for validation and early stopping, whole clips at a time (0 turns both off; not used with --validation-data).")
    var validationFraction: Double = ActionClassifierTrainingConfiguration().validationFraction

    @Option(parsing: .unconditional, help: "Iterations without a better validation score before stopping.")
    var patience: Int = ActionClassifierTrainingConfiguration().earlyStoppingPatience

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Iterations over which the kept weights are averaged (an exponential moving average); 0 keeps the raw weights.",
        discussion: "Validation, early stopping and the model file use the average, which settles the noise of the last steps: over eleven local test sets of unseen clips it raised accuracy on five (by up to 1.1 points) and lowered none by more than 0.2."))
    var weightAveraging: Double = ActionClassifierTrainingConfiguration().weightAveraging

    @Option(help: "Network: auto (graph for body18/hand21, temporal for custom joints), graph-convolution (ST-GCN) or temporal-convolution.")
    var architecture: String = "auto"

    @Option(parsing: .unconditional, help: "Features of the random-convolution head (MiniRocket-style) averaged with the network; 0 trains the network alone.")
    var randomConvolutionFeatures: Int = ActionClassifierTrainingConfiguration().randomConvolutionFeatures

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Whole models (network and head) trained from seeds s, s + 1000, … and averaged.",
        discussion: "Two by default: on clips of people and sessions a model never saw, two members beat one with few clips per class and with joints undetected, for twice the work in training and per window (with two cores the members train side by side, one core each); 1 trains a single model."))
    var ensemble: Int = ActionClassifierTrainingConfiguration().ensembleMembers

    @Option(help: "How the hand (chirality) of hand clips is used: ignore (default), mirror (left hands mirrored to right), or input.")
    var chirality: String = ChiralityHandling.ignore.rawValue

    @Option(parsing: .unconditional, help: "The seed every random choice flows from.")
    var seed: UInt64 = 0

    @Flag(help: "Replace a file at --output that is not a model of this kind (refused otherwise, so data is never overwritten).")
    var overwrite = false

    @Flag(help: "Continue an interrupted run from OUTPUT's checkpoint (same data and options).")
    var resume = false

    @OptionGroup var media: PoseMediaOptions

    @Flag(help: "Print only the report, warnings and the result (no progress lines).")
    var quiet = false

    func validate() throws {
        if (data == nil) == (annotations == nil) {
            throw ValidationError("give the labeled data with exactly one of --data DIR|TABLE.csv or --annotations FILE")
        }
        try IncompleteSampleSet.check(data, option: "--data")
        try IncompleteSampleSet.check(annotations, option: "--annotations")
        if validationData != nil && validationAnnotations != nil {
            throw ValidationError("give validation clips with at most one of --validation-data DIR|TABLE.csv or --validation-annotations FILE")
        }
        try IncompleteSampleSet.check(validationData, option: "--validation-data")
        try IncompleteSampleSet.check(validationAnnotations, option: "--validation-annotations")
        if predictionWindow < 1 { throw ValidationError("--prediction-window must be at least 1 frame") }
        if let problem = PoseLimits.frameRateProblem(frameRate) { throw ValidationError("--frame-rate \(problem)") }
        if KeypointOrigin(rawValue: keypointOrigin) == nil {
            throw ValidationError("--keypoint-origin must be top-left or bottom-left, not '\(keypointOrigin)'")
        }
        let parsed = PoseAugmentation.parseList(augment)
        if !parsed.unknown.isEmpty {
            throw ValidationError("unknown augmentation\(parsed.unknown.count == 1 ? "" : "s") \(parsed.unknown.map { "'\($0)'" }.joined(separator: ", ")) in --augment; choose from \(PoseAugmentation.allCases.map(\.rawValue).joined(separator: ", ")), all, none, default")
        }
        if architecture != "auto" && ActionClassifierArchitecture.Kind(rawValue: architecture) == nil {
            throw ValidationError("--architecture must be auto, \(ActionClassifierArchitecture.Kind.allCases.map(\.rawValue).joined(separator: " or ")), not '\(architecture)'")
        }
        if ChiralityHandling(name: chirality) == nil {
            throw ValidationError("--chirality must be ignore, mirror or input, not '\(chirality)'")
        }
        if output.isEmpty { throw ValidationError("--output must name a file") }
    }

    /// Loads the data, prints the report, trains and writes the model; with `handJointsOnly`, the
    /// data must be hand poses (hand21, or custom joints that are all hand21 names).
    func train(handJointsOnly: Bool) throws {
        let job = try Job.start()
        try OutputGuard.checkModelOutput(output, task: .actionClassifier, overwrite: overwrite, inputs: [data, annotations, validationData, validationAnnotations],
                                         dataFolders: [data, OutputGuard.folder(of: annotations), validationData,
                                                       OutputGuard.folder(of: validationAnnotations)])
        var configuration = ActionClassifierTrainingConfiguration()
        configuration.windowLength = predictionWindow
        configuration.frameRate = frameRate
        configuration.augmentations = PoseAugmentation.parseList(augment).augmentations
        configuration.maximumIterations = maxIterations
        configuration.batchSize = batchSize
        configuration.learningRate = learningRate
        configuration.validationFraction = validationFraction
        configuration.earlyStoppingPatience = patience
        configuration.weightAveraging = weightAveraging
        configuration.architecture = ActionClassifierArchitecture.Kind(rawValue: architecture)
        configuration.randomConvolutionFeatures = randomConvolutionFeatures
        configuration.ensembleMembers = ensemble
        configuration.chirality = ChiralityHandling(name: chirality) ?? .ignore
        configuration.seed = seed
        var trainer = try ActionClassifierTrainer(configuration: configuration,
                                                  observer: job.isRoot ? Console.observer(quiet: quiet) : nil)
        trainer.communicator = job

        let options = try media.attach(to: PoseReadingOptions(frameRate: frameRate, keypointOrigin: KeypointOrigin(rawValue: keypointOrigin) ?? .topLeft),
                                       joints: handJointsOnly ? .hand21 : .body18)
        var source = URL(fileURLWithPath: data ?? annotations ?? "")
        var validation = (validationData ?? validationAnnotations).map { (url: URL(fileURLWithPath: $0), isAnnotations: validationAnnotations != nil) }
        if data != nil, let splits = DataFiles.splitFolders(of: source) {
            // `<root>/train/<label>/…` with `validation/` and/or `test/` (FORMATS §1's splits, as the
            // image classifier reads them): train/ trains, validation/ validates, test/ waits for evaluate.
            var what = ["training on \(splits.train.path)"]
            if let folder = splits.validation {
                if validation == nil { validation = (folder, false) }
                what.append(validation?.url == folder ? "validating on \(folder.path)" : "\(validationAnnotations != nil ? "--validation-annotations" : "--validation-data") replaces \(folder.path)")
            }
            if let test = splits.test { what.append("\(test.path) is left for `coach evaluate MODEL --data \(source.path)`") }
            Console.note("\(source.path) holds splits: " + what.joined(separator: "; "))
            source = splits.train
        }
        let dataset = try SharedMediaPoses.load(options, job: job) { [source] options in
            data != nil ? try PoseDataset.load(source, options: options) : try PoseDataset.loadAnnotations(source, options: options)
        }
        if handJointsOnly { try ActionTrainingOptions.checkHandJoints(dataset.jointSet, source: source) }
        let summary = ActionDatasetSummary(dataset: dataset, sampler: trainer.sampler)
        ActionClassifierReport.printSummary(summary, ignoredFiles: dataset.ignoredFiles.count)
        let validationExamples = try validation.map { try ActionTrainingOptions.loadValidation($0.url, isAnnotations: $0.isAnnotations, options, job: job, training: dataset) }
        let augmentations = configuration.augmentations.sorted().map(\.rawValue).joined(separator: ", ")
        Console.note("augmentations: \(augmentations.isEmpty ? "none" : augmentations)"
                     + (configuration.augmentations == PoseAugmentation.labelSafe ? " (the default; --augment none turns them off)" : ""))
        if configuration.augmentations.contains(.occlude) {
            let share = PoseAugmenter.occlusionProbability(matching: summary.missedShare)
            Console.note(summary.missedShare > 0
                ? "occlude: \(String(format: "%.1f", 100 * summary.missedShare)) % of the keypoints of the joints the data has are undetected, so about \(Int((100 * share).rounded())) % of the training windows lose joints as well"
                : "occlude: every joint the data has is detected in every frame, so no training window loses joints")
        }
        let hands = dataset.clips.map(\.sequence.chirality)
        if hands.contains(where: { $0 != nil }) {
            let left = hands.filter { $0 == .left }.count, right = hands.filter { $0 == .right }.count
            Console.note("hands: \(left) left, \(right) right, \(hands.count - left - right) unknown clip\(hands.count - left - right == 1 ? "" : "s")")
        }
        let network = configuration.networkArchitecture(for: dataset.jointSet)
        Console.note("network: \(network.kind.rawValue) (blocks of \(network.channels.map(String.init).joined(separator: ", ")) channels)\(configuration.architecture == nil ? ", chosen for \(dataset.jointSet.kind == .custom ? "custom joints" : dataset.jointSet.kind.rawValue)" : "")\(handJointsOnly || configuration.chirality != .ignore ? "; chirality: \(configuration.chirality.rawValue)" : "")")

        let outputURL = URL(fileURLWithPath: output)
        try FileManager.default.createDirectory(at: outputURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        let checkpoint = ActionClassifierTrainer.checkpointURL(for: outputURL)
        let checkpoints = ActionClassifierTrainer.checkpointURLs(for: outputURL)
        for url in checkpoints { try OutputGuard.checkCheckpoint(url) }
        let start = Date()
        let result = try trainer.train(on: dataset, validationExamples: validationExamples, checkpoint: checkpoint, resume: resume)
        guard job.isRoot else { return }
        for member in result.model.members { member.keypointOrigin = options.keypointOrigin }
        try ActionTrainingOptions.write(result, to: outputURL, removing: checkpoints, seconds: Date().timeIntervalSince(start))
    }

    /// The segments of the validation clips at `url` (`--validation-data`, `--validation-annotations`
    /// or a `validation/` split) in `training`'s joint order, with a note of what they are and
    /// which classes they lack.
    private static func loadValidation(_ url: URL, isAnnotations: Bool, _ options: PoseReadingOptions, job: Communicator,
                                       training: PoseDataset) throws -> [PoseExample] {
        let path = url.path
        let validation = try SharedMediaPoses.load(options, job: job) { options in
            isAnnotations ? try PoseDataset.loadAnnotations(url, options: options) : try PoseDataset.load(url, options: options)
        }
        let examples = try validation.examples(conformingTo: training)
        let counts = PoseClasses.counts(of: examples.map(\.label))
        Console.note("validation: \(examples.count) segment\(examples.count == 1 ? "" : "s") of \(validation.clips.count) clip\(validation.clips.count == 1 ? "" : "s") from \(path) ("
                     + training.labels.map { "\($0) \(counts[$0] ?? 0)" }.joined(separator: ", ")
                     + "); every training clip trains")
        // Clips that also train would judge the model on what it learned, not on new people.
        let trainingFiles = Set(training.clips.map { $0.sequence.source.file.resolvingSymlinksInPath().path })
        let shared = Set(validation.clips.map { $0.sequence.source.file.resolvingSymlinksInPath().path }).intersection(trainingFiles)
        if !shared.isEmpty {
            Console.warning("\(shared.count) of the \(validation.clips.count) validation clip files are training clips too (\(URL(fileURLWithPath: shared.sorted()[0]).lastPathComponent)\(shared.count > 1 ? ", …" : "")): validation judges them on what the model trained on; give clips of other people or sessions")
        }
        let absent = training.labels.filter { counts[$0] == nil }
        if !absent.isEmpty {
            Console.warning("the validation clips show no \(absent.joined(separator: ", ")): early stopping cannot judge \(absent.count == 1 ? "that class" : "those classes")")
        }
        return examples
    }

    /// Writes a trained pose classifier to `outputURL`, removes the finished run's checkpoint
    /// and prints what was written and how long this run trained (`seconds`).
    static func write<Model, Configuration>(_ result: PoseClassifierTrainingResult<Model, Configuration>, to outputURL: URL,
                                            removing checkpoints: [URL], seconds: Double) throws {
        let file = try result.modelFile(name: outputURL.deletingPathExtension().lastPathComponent)
        try file.write(to: outputURL)
        for checkpoint in checkpoints { try? FileManager.default.removeItem(at: checkpoint) }
        let iterations = result.history.count
        var line = "wrote \(outputURL.relativePath): \(result.model.labels.count) classes, \(file.parameterCount) parameters, \(iterations) iteration\(iterations == 1 ? "" : "s"), trained in \(Console.duration(seconds))"
        if let accuracy = result.metrics["validation.accuracy"] {
            line += ", validation accuracy \(Console.percent(accuracy)) on \(result.validationCount) \(result.unit)"
            if let best = result.bestIteration { line += " (iteration \(best))" }
            if let members = result.metrics["ensembleMembers"] { line += "; \(Int(members)) ensemble members, the figures are the first's" }
        } else if let accuracy = result.metrics["training.accuracy"] {
            line += ", training accuracy \(Console.percent(accuracy))"
        }
        Console.print(line)
    }

    /// Throws unless `jointSet` is `hand21` or a custom set of hand21 joint names (e.g. `indexTip`
    /// alone): the hand-action classifier is for hands; other joints belong to `action-classifier`.
    static func checkHandJoints(_ jointSet: JointSet, source: URL) throws {
        if jointSet.kind == .hand21 { return }
        let handNames = Set(JointSet.hand21.names)
        let foreign = jointSet.names.filter { !handNames.contains($0) }
        guard !foreign.isEmpty else { return }
        let what = jointSet.kind == .body18 ? "body poses (body18)" : "joints that are not hand joints (\(foreign.joined(separator: ", ")))"
        throw CLIError("\(source.path): has \(what): a hand-action classifier expects Vision's 21 hand joints (\(JointSet.hand21.names.prefix(4).joined(separator: ", ")), …) or some of them; train other joints with `coach train action-classifier`")
    }
}
