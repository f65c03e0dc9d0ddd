import ArgumentParser
import CoachModels
import CoachTraining
import Foundation

/// `coach train image-classifier`: transfer learning on labeled image folders.
struct TrainImageClassifierCommand: ParsableCommand, JobCommand {
    static let configuration = CommandConfiguration(
        commandName: "image-classifier",
        abstract: "Train an image classifier from a folder per label (FORMATS §1).",
        discussion: """
        DIR holds one folder per label (DIR/<label>/*.jpg|png), or train/ plus
        validation/ and/or test/ splits of such folders. Without validation data a
        seeded, stratified 10 % of each class is held out. Images that cannot be
        decoded are skipped (named); classes with fewer than 10 images, imbalance over
        10:1 and images shared between training and validation are warned about.

        The head reads the frozen EfficientNet-Lite0 backbone's activations averaged
        over the image: by default its last layer's 1,280 and, after them, the 112 of
        its stride-16 map (1,392 values; the middle of the network still tells textures
        and shapes that ImageNet's last layer has folded into ImageNet's own
        categories); --features head reads the 1,280 alone, the features Create ML and
        scikit-learn transfer learning use.

        Features are computed once per image and augmented view, and cached on disk
        (--feature-cache; default ~/.cache/coach/features), so re-training with other
        options is fast, and an interrupted run resumes by running the same command
        again. The head is L2-regularised logistic regression (L-BFGS to convergence,
        its L2 penalty chosen by 5-fold cross-validation over the training images, then
        refitted with the held-out validation images added) or a small MLP
        (--max-iterations epochs; the epoch with the best validation loss is kept).

        --augment takes a comma-separated list of: flip, rotate, crop, translate,
        exposure, contrast, saturation, blur, noise. Each adds one augmented copy of
        every training image (as Create ML's augmentation options do).

        Examples:
          coach train image-classifier --data datasets/generated/sports-gear \\
                --output models/gear.h5
          coach train image-classifier --data photos --output fruit.h5 \\
                --augment flip,crop --seed 7

        Over many processes or machines (Open MPI), the ranks share the photos'
        features and the cross-validation, with the same model bytes as one process:
          mpirun -np 4 coach train image-classifier --data photos --output fruit.h5
        """)

    @Option(help: "Training data: a folder per label, or train/ and validation/ or test/ splits.")
    var data: String

    @Option(help: "The model file to write (.h5).")
    var output: String

    @Option(help: "Validation data (a folder per label); default: the validation/ split, else a seeded 10 % hold-out.")
    var validation: String?

    @Option(help: "Augmentations, comma-separated: flip, rotate, crop, translate, exposure, contrast, saturation, blur, noise.")
    var augment: String = ""

    @Option(help: "The head: logistic (default) or mlp.")
    var classifier: ImageClassifierKind = .logistic

    @Option(help: "The backbone activations the head reads: head+stride16 (default; 1,392 values) or head (1,280).")
    var features: ImageFeatureLayers = .headAndStride16

    @Option(parsing: .unconditional, help: "Maximum iterations: L-BFGS steps (default 500: to convergence) or MLP epochs (default 25).")
    var maxIterations: Int?

    @Option(parsing: .unconditional, help: "The seed every random choice flows from.")
    var seed: UInt64 = 0

    @Option(parsing: .unconditional, help: "L2 penalty of the logistic head on the raw features (default: chosen by 5-fold cross-validation).")
    var l2Penalty: Double?

    @Option(parsing: .unconditional, help: "Hidden units of the MLP head.")
    var hiddenUnits: Int = 256

    @Option(parsing: .unconditional, help: "Fraction of each class held out for validation when there is no validation data.")
    var validationFraction: Double = 0.1

    @Option(help: ArgumentHelp(backboneOptionHelp))
    var backbone: String?

    @Option(help: "The on-disk feature cache folder (default: $COACH_CACHE_DIR/features, $XDG_CACHE_HOME/coach/features or ~/.cache/coach/features).")
    var featureCache: String?

    @Flag(help: "Replace a file at --output that is not a model of this kind (refused otherwise, so data is never overwritten).")
    var overwrite = false

    @Flag(help: "Do not read or write the on-disk feature cache.")
    var noFeatureCache = false

    @Option(help: "A name stored in the model file (default: the output file's name).")
    var name: String?

    @Flag(help: "Print only warnings, errors and the final summary.")
    var quiet = false

    func validate() throws {
        try IncompleteSampleSet.check(data, option: "--data")
        if let maxIterations, maxIterations < 1 { throw ValidationError("--max-iterations must be at least 1") }
        if let l2Penalty, !(l2Penalty >= 0 && l2Penalty.isFinite) { throw ValidationError("--l2-penalty must be ≥ 0") }
        if !(validationFraction > 0 && validationFraction < 1) { throw ValidationError("--validation-fraction must be between 0 and 1") }
        if noFeatureCache && featureCache != nil { throw ValidationError("--feature-cache and --no-feature-cache cannot be combined") }
    }

    func run() throws {
        try reportingErrors {
            let job = try Job.start()
            try OutputGuard.checkModelOutput(output, task: .imageClassifier, overwrite: overwrite,
                                             inputs: [data, backbone ?? Backbone.defaultLocation()?.path], dataFolders: [data])
            var configuration = ImageClassifierTrainingConfiguration()
            configuration.classifier = classifier
            configuration.featureLayers = features
            configuration.maximumIterations = maxIterations
            configuration.seed = seed
            configuration.augmentations = augment.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            configuration.l2Penalty = l2Penalty
            configuration.hiddenUnits = hiddenUnits
            configuration.validationFraction = validationFraction
            let backboneModel = try loadBackbone(backbone)
            let cache: FeatureCache? = noFeatureCache ? nil
                : FeatureCache(directory: featureCache.map { URL(fileURLWithPath: $0) } ?? FeatureCache.defaultDirectory())
            var trainer = try ImageClassifierTrainer(configuration: configuration, backbone: backboneModel,
                                                     featureCache: cache, observer: job.isRoot ? Console.observer(quiet: quiet) : nil)
            trainer.communicator = job
            let outputURL = URL(fileURLWithPath: output)
            let start = Date()
            let result = try trainer.train(data: URL(fileURLWithPath: data), validation: validation.map { URL(fileURLWithPath: $0) },
                                           name: name ?? outputURL.deletingPathExtension().lastPathComponent)
            guard job.isRoot else { return }
            try result.model.modelFile().write(to: outputURL)
            let seconds = Date().timeIntervalSince(start)
            var line = "wrote \(output) (\(result.model.labels.count) classes, \(result.model.head.kind) head, trained in \(Console.duration(seconds))"
            if let best = result.bestIteration { line += ", kept iteration \(best) of \(result.history.count)" }
            line += ")"
            Console.print(line)
            if let metrics = result.model.metrics["training.accuracy"] { Console.print("training accuracy: \(Console.percent(metrics))") }
            if let validation = result.validationMetrics {
                Console.print("validation accuracy: \(Console.percent(validation.accuracy)) (\(validation.count) images)")
            }
            if let test = result.testMetrics {
                Console.print("")
                Console.print("test data:")
                Console.print(MetricsTable.render(test))
            }
        }
    }
}

/// The help of every command's `--backbone` option (it is found the same way everywhere: `loadBackbone`).
let backboneOptionHelp = "The backbone model file (default: $COACH_BACKBONE, then models/efficientnet-lite0.h5)."

/// Loads the backbone at `path`, or at the default location; a clear error when there is none.
func loadBackbone(_ path: String?) throws -> Backbone {
    guard let url = path.map({ URL(fileURLWithPath: $0) }) ?? Backbone.defaultLocation() else {
        throw BackboneError.notFound(searched: "$COACH_BACKBONE, ./models/\(Backbone.defaultFileName) and models/ beside the coach executable")
    }
    return try Backbone.load(from: url)
}

extension ImageClassifierKind: ExpressibleByArgument {}
extension ImageFeatureLayers: ExpressibleByArgument {}
