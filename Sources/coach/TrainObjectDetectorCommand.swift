import ArgumentParser
import CoachData
import CoachModels
import CoachTraining
import Foundation

/// `coach train object-detector`: a board (or any object) detector from Create ML annotations.
struct TrainObjectDetectorCommand: ParsableCommand, JobCommand {
    static let configuration = CommandConfiguration(
        commandName: "object-detector",
        abstract: "Train an object detector from Create ML annotation JSON (or YOLO / Pascal VOC).",
        discussion: """
        Transfer learning on the frozen EfficientNet-Lite0 backbone: the backbone's maps of \
        every training image and of --views-per-image − 1 augmented views are computed once \
        and cached in memory; then only the detection head trains. Images are letterboxed \
        into --input-size × --input-size; the head predicts on grids of size/16 and size/32 \
        cells (26×26 and 13×13 at 416, Create ML's grid) with anchors from k-means on the \
        training boxes: small anchors on the fine grid, large ones on the coarse grid.

        --annotations takes a Create ML JSON file (image paths relative to its folder), a \
        YOLO names file or dataset folder, or Pascal VOC XML files. Every problem in the \
        data is listed before training starts.

        Examples:
          coach train object-detector --annotations boards/annotations.json \\
                --output board.h5
          coach train object-detector --annotations train.json \\
                --validation-annotations test.json --output board.h5 --seed 7

        Over many processes or machines (Open MPI), the ranks share the backbone maps
        and rank 0 trains the head, with the same model bytes as one process:
          mpirun -np 4 coach train object-detector \\
                --annotations boards/annotations.json --output board.h5
        """)

    @Option(help: "Training annotations: Create ML .json, YOLO names file/folder, or Pascal VOC .xml file/folder.")
    var annotations: String

    @Option(name: .shortAndLong, help: "Where to write the model (.h5).")
    var output: String

    @Option(help: "Validation annotations (same formats), evaluated after training.")
    var validationAnnotations: String?

    @Option(parsing: .unconditional, help: "Hold out this fraction of the training images (seeded) for validation when no --validation-annotations are given.")
    var validationFraction: Double = 0

    @Option(parsing: .unconditional, help: "Input side in pixels (a multiple of 32); images are letterboxed into it.")
    var inputSize: Int = DetectorConfiguration.defaultInputSize

    @Option(parsing: .unconditional, help: "Training iterations (batches); default: about 14 passes over the cached views, 400…2400.")
    var maxIterations: Int?

    @Option(parsing: .unconditional, help: "Views per batch.")
    var batchSize: Int = 16

    @Option(help: "Comma-separated augmentations for the extra views (flip, crop, translate, rotate, exposure, contrast, saturation, blur, noise; 'none' for none).")
    var augment: String = ObjectDetectorTrainingConfiguration.defaultAugmentations.joined(separator: ",")

    @Option(parsing: .unconditional, help: "Views per training image with cached backbone maps (the original plus augmented ones).")
    var viewsPerImage: Int = 8

    @Option(help: "Box coding: anchors (YOLOv2-style, k-means on the training boxes) or anchor-free (centre-based).")
    var boxCoding: String = DetectorBoxCodingChoice.anchors.rawValue

    @Option(parsing: .unconditional, help: "Anchors for --box-coding anchors.")
    var anchors: Int = 5

    @Option(help: "Output levels' strides, comma-separated: 16 (grid size/16) and/or 32 (grid size/32, Create ML's 13×13 at 416); anchors of at least 64×64 pixels go to 32, anchor-free boxes use the finest.")
    var strides: String = "16,32"

    @Option(parsing: .unconditional, help: "Channels in the detection head.")
    var headWidth: Int = 96

    @Option(parsing: .unconditional, help: "Residual blocks in the detection head.")
    var headBlocks: Int = 2

    @Option(parsing: .unconditional, help: "Peak learning rate (AdamW).")
    var learningRate: Double = 2e-3

    @Option(parsing: .unconditional, help: "The seed for every random choice (same seed and data: same model).")
    var seed: UInt64 = 0

    @Option(help: ArgumentHelp(backboneOptionHelp))
    var backbone: String?

    @Flag(help: "Replace a file at --output that is not a model of this kind (refused otherwise, so data is never overwritten).")
    var overwrite = false

    @Flag(help: "Continue from OUTPUT's checkpoint (OUTPUT minus .h5, plus .checkpoint.h5) if one exists.")
    var resume = false

    @Flag(help: "Print the validation metrics as JSON on stdout.")
    var json = false

    func validate() throws {
        try IncompleteSampleSet.check(annotations, option: "--annotations")
        if !(0..<1).contains(validationFraction) { throw ValidationError("--validation-fraction must be in 0…1 (exclusive)") }
        if validationFraction > 0 && validationAnnotations != nil {
            throw ValidationError("give either --validation-annotations or --validation-fraction, not both")
        }
        if DetectorBoxCodingChoice(rawValue: boxCoding) == nil {
            throw ValidationError("--box-coding must be one of: \(DetectorBoxCodingChoice.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let problems = trainingConfiguration.problems
        if !problems.isEmpty { throw ValidationError(problems.joined(separator: "; ")) }
    }

    var trainingConfiguration: ObjectDetectorTrainingConfiguration {
        ObjectDetectorTrainingConfiguration(
            inputSize: inputSize, maximumIterations: maxIterations, batchSize: batchSize,
            augmentations: augment.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && $0.lowercased() != "none" },
            viewsPerImage: viewsPerImage, seed: seed, boxCoding: DetectorBoxCodingChoice(rawValue: boxCoding) ?? .anchorFree,
            anchorCount: anchors, strides: strides.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) },
            headWidth: headWidth, headBlocks: headBlocks, learningRate: learningRate)
    }

    func run() throws {
        try reportingErrors {
            let job = try Job.start()
            try OutputGuard.checkModelOutput(output, task: .objectDetector, overwrite: overwrite,
                                             inputs: [annotations, validationAnnotations, backbone ?? Backbone.defaultLocation()?.path],
                                             dataFolders: [annotations, OutputGuard.folder(of: annotations), validationAnnotations,
                                                           OutputGuard.folder(of: validationAnnotations)])
            let configuration = trainingConfiguration
            _ = try AugmentationPipeline(parsing: configuration.augmentations.joined(separator: ","))
            var training = try DetectionDataset.load(from: URL(fileURLWithPath: annotations))
            var validation = try validationAnnotations.map { try DetectionDataset.load(from: URL(fileURLWithPath: $0)) }
            if validationFraction > 0 {
                var generator = SeededGenerator(seed: seed)
                let parts = training.split(validationFraction: validationFraction, using: &generator)
                training = parts.training
                validation = parts.validation
            }
            Console.note("Training data")
            for line in DetectionDatasetSummary(training).lines { Console.note(line) }
            for warning in training.warnings.prefix(20) { Console.warning(warning.description) }
            if let validation {
                Console.note("Validation data")
                for line in DetectionDatasetSummary(validation).lines { Console.note(line) }
                let unknown = Set(validation.labels).subtracting(training.labels)
                if !unknown.isEmpty {
                    Console.warning("validation labels not in the training data (their boxes are left out): \(unknown.sorted().joined(separator: ", "))")
                }
            }
            let backboneModel = try loadBackbone(backbone)
            let outputURL = URL(fileURLWithPath: output)
            try OutputGuard.checkCheckpoint(ObjectDetectorTrainer.checkpointURL(for: outputURL))
            // Over MPI, the ranks share the backbone maps (almost all of the time on large sets) and rank 0
            // trains the head on all of them: a head iteration is a few hundred milliseconds of small
            // GEMMs, cheaper on one rank than exchanging gradients every iteration.
            var shared: ObjectDetectorTrainer.CachedViews?
            if job.size > 1 {
                shared = try ObjectDetectorTrainer.cacheViews(training: training, validation: validation, backbone: backboneModel,
                                                              configuration: configuration, communicator: job,
                                                              observer: Console.observer())
            }
            guard job.isRoot else { return }
            var result = try ObjectDetectorTrainer.train(
                training: training, validation: validation, backbone: backboneModel, configuration: configuration,
                cachedViews: shared, checkpoint: ObjectDetectorTrainer.checkpointURL(for: outputURL), resume: resume,
                observer: Console.observer())
            if let shared { result.featureSeconds = shared.seconds }
            try result.modelFile.write(to: outputURL)
            Console.note(String(format: "trained %d iterations in %@ (backbone maps %@)", result.iterations,
                                Console.duration(result.trainingSeconds), Console.duration(result.featureSeconds)))
            if !json { Console.print("wrote \(output)") }
            if let metrics = result.validationMetrics {
                if json { try Console.printJSON(metrics) } else { Console.print(DetectionMetricsTable.render(metrics)) }
            }
        }
    }
}
