import ArgumentParser
import CoachData
import CoachModels
import CoachTraining
import Foundation

/// `coach evaluate MODEL …`: evaluates any Coach model on labeled data.
struct EvaluateCommand: ParsableCommand, JobCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Evaluate a trained model on labeled data and print its metrics.",
        discussion: """
        The model file says what it is; the data options that apply depend on its task:
          image classifier       --data DIR (a folder per label)
          object detector        --annotations FILE.json (Create ML annotations)
          action classifier      --data DIR|TABLE.csv or --annotations FILE.{csv,json}
          hand-pose classifier   --data TABLE.csv|DIR (single poses, or a folder per
                                 class of clips whose frames are poses)

        Classifiers print accuracy, per-class precision/recall/F1 and a confusion
        matrix (rows: true class, columns: predicted); detectors print AP at IoU 0.5
        and 0.50:0.95. --json prints one JSON object instead (task, accuracy, classes,
        confusionMatrix, perClass, … for classifiers, with predictions: every
        image's, segment's or pose's source, label, predictedLabel and confidence;
        for detectors meanAveragePrecision50, perClass, …, with images: every
        image's source and its correct, wrong and missed boxes in pixels).

        --mistakes FILE.jpg draws what was predicted wrong on one picture and lists
        it. Classifiers put the most confident mistakes first (often mislabelled
        data), each captioned with its label and the prediction: an image
        classifier's images; an action classifier's segments, one row of stick
        figures across each, every figure captioned with its time and the top class
        of the window around it; a hand-pose classifier's poses. An object detector
        draws the images with most mistakes: missed boxes yellow, wrong ones
        magenta, right ones green (at the confidence and IoU of its precision and
        recall).

        Under mpirun (Open MPI) the ranks share the images' backbone work for image
        classifiers and detectors, with the metrics of one process; pose models are
        scored on rank 0.

        Examples:
          coach evaluate models/throws.h5 \\
                --annotations datasets/throws/test/annotations.csv
          coach evaluate models/fruit.h5 --data photos/test --json
          coach evaluate models/fruit.h5 --data photos/test --mistakes mistakes.jpg
          coach evaluate models/throws.h5 --mistakes throw-mistakes.png \\
                --annotations datasets/throws/test/annotations.csv
          coach evaluate models/boards.h5 --mistakes board-mistakes.jpg \\
                --annotations datasets/cornhole/test/annotations.json
          mpirun -np 4 coach evaluate models/fruit.h5 --data photos/test
        """)

    @Argument(help: "The model file (.h5) to evaluate.")
    var model: String

    @OptionGroup var data: EvaluationDataOptions

    @Flag(help: "Print the results as one JSON object.")
    var json = false

    func run() throws {
        try reportingErrors {
            let summary = try readModelSummary(model)
            guard let handler = TaskCommands.handler(for: summary.metadata.task) else {
                throw CLIError("\(model): models of task '\(summary.metadata.task)' cannot be evaluated (supported: \(TaskCommands.supportedTasks))")
            }
            try TaskOption.check(data.givenTaskOptions, model: model, task: summary.metadata.task,
                                 accepted: handler.evaluateOptions, acceptedBy: { $0.evaluateOptions })
            let job = try Job.start()
            if job.size > 1 && handler.evaluatesOnRankZero {
                guard job.isRoot else { return }
                Console.warning("coach evaluate runs on one process for \(summary.metadata.task) models: ranks other than 0 of this job have nothing to do and ended")
            }
            try handler.evaluate(modelPath: model, data: data, json: json, job: job)
        }
    }
}

/// Data options shared by `evaluate` across tasks.
struct EvaluationDataOptions: ParsableArguments {
    @Option(help: "Labeled data: a folder per label, or a table CSV (pose tasks).")
    var data: String?

    @Option(help: "An annotation file: Create ML detection JSON, or action annotations (CSV/JSON).")
    var annotations: String?

    @Option(parsing: .unconditional, help: "Frame rate for pose files without timestamps (pose tasks).")
    var frameRate: Double?

    @Option(help: "Keypoint origin of pose data: top-left or bottom-left (pose tasks).")
    var keypointOrigin: String?

    @OptionGroup var media: PoseMediaOptions

    @Option(help: "Draw what was predicted wrong (images, pose segments, poses, missed and wrong boxes) on this .jpg or .png picture.")
    var mistakes: String?

    @Flag(help: "Let --mistakes replace an existing file (never the model).")
    var overwrite = false

    func validate() throws {
        try IncompleteSampleSet.check(data, option: "--data")
        try IncompleteSampleSet.check(annotations, option: "--annotations")
    }

    /// The `--mistakes` picture's path once it is known to be writable and a .jpg or .png, or nil
    /// when none was asked for.
    func checkedMistakesPicture(modelPath: String) throws -> String? {
        guard let mistakes else { return nil }
        try OutputGuard.checkFileOutput(mistakes, option: "--mistakes", inputs: [modelPath], overwrite: overwrite)
        guard PictureFormat(path: mistakes) != nil else {
            throw ValidationError("--mistakes must name a .jpg or .png picture (got '\(mistakes)'): the format follows the name")
        }
        return mistakes
    }

    /// The task-specific options given on the command line.
    var givenTaskOptions: Set<TaskOption> {
        var given: Set<TaskOption> = []
        if frameRate != nil { given.insert(.frameRate) }
        if keypointOrigin != nil { given.insert(.keypointOrigin) }
        if media.mirrored { given.insert(.mirrored) }
        if mistakes != nil { given.insert(.mistakes) }
        return given
    }
}

/// `coach predict MODEL INPUT…`: runs any Coach model on new inputs.
struct PredictCommand: ParsableCommand, JobCommand {
    static let configuration = CommandConfiguration(
        commandName: "predict",
        abstract: "Run a trained model on images or pose clips and print its predictions.",
        discussion: """
        Inputs depend on the model's task: images for image classifiers and object
        detectors, pose clip files (CSV/JSON) for action classifiers, a single-pose CSV
        for hand-pose classifiers (labels optional; a clip file's frames are poses
        too).

        Examples:
          coach predict models/fruit.h5 apple.jpg --top 3
          coach predict models/board.h5 frame.jpg --draw frame-boxes.png
          coach predict models/throws.h5 clip.csv --json
          coach predict models/hands.h5 poses.csv --top 2

        Under mpirun (Open MPI) each rank predicts its share of the inputs and rank 0
        prints every result in input order (one JSON array with --json):
          mpirun -np 4 coach predict models/fruit.h5 photos/*.jpg --json
        """)

    @Argument(help: "The model file (.h5).")
    var model: String

    @Argument(help: "Input files (images or pose clips).")
    var inputs: [String]

    @Option(name: .customLong("top"), parsing: .unconditional, help: "How many labels to show per input (classifiers; default 3).")
    var givenTop: Int?

    @Option(parsing: .unconditional, help: "Minimum confidence to report (detectors, action classifiers).")
    var confidenceThreshold: Double?

    @Option(name: .customLong("iou-threshold"), parsing: .unconditional,
            help: "IoU above which overlapping boxes of a class are suppressed (detectors; default 0.45).")
    var givenIoUThreshold: Double?

    @Option(help: "Write the image with the detected boxes drawn to this .png or .jpg (detectors, one input).")
    var draw: String?

    @Flag(help: "Let --draw replace an existing file (never the model or an input).")
    var overwrite = false

    @Option(parsing: .unconditional, help: "Frame rate for pose files without timestamps (pose tasks).")
    var frameRate: Double?

    @Option(help: "Keypoint origin of pose data: top-left or bottom-left (pose tasks).")
    var keypointOrigin: String?

    @OptionGroup var media: PoseMediaOptions

    @Flag(help: "Print the predictions as JSON.")
    var json = false

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("give at least one input file to predict on") }
        if let stream = inputs.first(where: { $0 == "-" || $0 == "/dev/stdin" }) {
            throw ValidationError("'\(stream)': predict reads files, not standard input; save the data to a file and give its path")
        }
        if let givenTop, givenTop < 1 { throw ValidationError("--top must be at least 1 (got \(givenTop))") }
        if let confidenceThreshold, !(0...1).contains(confidenceThreshold) {
            throw ValidationError("--confidence-threshold must be a number in 0…1 (got \(confidenceThreshold))")
        }
        if let givenIoUThreshold, !(0...1).contains(givenIoUThreshold) {
            throw ValidationError("--iou-threshold must be a number in 0…1 (got \(givenIoUThreshold))")
        }
    }

    /// Labels shown per input.
    var top: Int { givenTop ?? 3 }
    /// The detectors' non-maximum-suppression IoU.
    var iouThreshold: Double { givenIoUThreshold ?? 0.45 }

    /// The task-specific options given on the command line.
    var givenTaskOptions: Set<TaskOption> {
        var given: Set<TaskOption> = []
        if givenTop != nil { given.insert(.top) }
        if confidenceThreshold != nil { given.insert(.confidenceThreshold) }
        if givenIoUThreshold != nil { given.insert(.iouThreshold) }
        if draw != nil { given.insert(.draw) }
        if overwrite { given.insert(.overwrite) }
        if frameRate != nil { given.insert(.frameRate) }
        if keypointOrigin != nil { given.insert(.keypointOrigin) }
        if media.mirrored { given.insert(.mirrored) }
        return given
    }

    func run() throws {
        try reportingErrors {
            let summary = try readModelSummary(model)
            guard let handler = TaskCommands.handler(for: summary.metadata.task) else {
                throw CLIError("\(model): models of task '\(summary.metadata.task)' cannot predict (supported: \(TaskCommands.supportedTasks))")
            }
            try TaskOption.check(givenTaskOptions, model: model, task: summary.metadata.task, accepted: handler.predictOptions,
                                 acceptedBy: { $0.predictOptions })
            let job = try Job.start()
            guard job.size > 1 else { return try handler.predict(modelPath: model, options: self) }
            // Over an MPI job: each rank predicts its share of the inputs; rank 0 prints them all in order.
            try ShardedOutput.run(job: job, count: inputs.count, json: json, allOrNothing: handler.predictsAllOrNothing) { share in
                var part = self
                part.inputs = Array(inputs[share])
                try reportingErrors { try handler.predict(modelPath: model, options: part) }
                return []
            }
        }
    }
}

/// What each task contributes to `evaluate` and `predict`.
protocol TaskCommandHandler {
    /// Evaluates on `data`; the ranks of `job` share the work where the task allows it (the
    /// others give it to rank 0: `evaluatesOnRankZero`).
    static func evaluate(modelPath: String, data: EvaluationDataOptions, json: Bool, job: Communicator) throws
    static func predict(modelPath: String, options: PredictCommand) throws
    /// The task-specific `predict` options this task reads.
    static var predictOptions: Set<TaskOption> { get }
    /// Whether `evaluate` runs on rank 0 alone under mpirun (pose data from files is quick to score).
    static var evaluatesOnRankZero: Bool { get }
    /// Whether `predict` reads every input before printing any result, so that one bad input
    /// means no result at all (false: each input's result or error on its own).
    static var predictsAllOrNothing: Bool { get }
    /// The task-specific `evaluate` options this task reads.
    static var evaluateOptions: Set<TaskOption> { get }
}

extension TaskCommandHandler {
    static var predictsAllOrNothing: Bool { false }
    static var evaluatesOnRankZero: Bool { false }
}

/// `predict`'s and `evaluate`'s options that only some tasks read.
enum TaskOption: String, CaseIterable {
    case top = "--top"
    case confidenceThreshold = "--confidence-threshold"
    case iouThreshold = "--iou-threshold"
    case draw = "--draw"
    case overwrite = "--overwrite"
    case frameRate = "--frame-rate"
    case keypointOrigin = "--keypoint-origin"
    case mirrored = "--mirrored"
    case mistakes = "--mistakes"
}

/// The registry of task handlers (one file per task adds itself here).
enum TaskCommands {
    static let handlers: [ModelTask: TaskCommandHandler.Type] = [
        .actionClassifier: ActionClassifierCommands.self,
        .imageClassifier: ImageClassifierTaskCommands.self,
        .handPoseClassifier: HandPoseClassifierCommands.self,
        .objectDetector: ObjectDetectorCommands.self,
    ]

    static func handler(for task: ModelTask) -> TaskCommandHandler.Type? { handlers[task] }

    static var supportedTasks: String {
        handlers.keys.map(\.rawValue).sorted().joined(separator: ", ")
    }
}

extension TaskOption {
    /// Refuses options the model's task would ignore (a user who asks for `--draw` on an image
    /// classifier expects a drawing, not silence), naming them all and the tasks they apply to.
    static func check(_ given: Set<TaskOption>, model: String, task: ModelTask, accepted: Set<TaskOption>,
                      acceptedBy: (TaskCommandHandler.Type) -> Set<TaskOption>) throws {
        let ignored = given.subtracting(accepted).sorted { $0.rawValue < $1.rawValue }
        guard !ignored.isEmpty else { return }
        let lines = ignored.map { option -> String in
            let tasks = TaskCommands.handlers.filter { acceptedBy($0.value).contains(option) }.keys.map(\.rawValue).sorted()
            return "\(option.rawValue) applies to \(tasks.joined(separator: " and ")) models only"
        }
        throw CLIError("\(model) is a model of task '\(task.rawValue)', which would ignore \(ignored.count == 1 ? "this option" : "these options"):\n  "
                       + lines.joined(separator: "\n  "))
    }
}
