import ArgumentParser
import CoachData
import CoachModels
import CoachRuntime
import CoachTraining
import Foundation

/// `coach evaluate` and `coach predict` for image classifiers.
enum ImageClassifierTaskCommands: TaskCommandHandler {
    static let predictOptions: Set<TaskOption> = [.top]
    static let evaluateOptions: Set<TaskOption> = [.mistakes]

    static func evaluate(modelPath: String, data: EvaluationDataOptions, json: Bool, job: Communicator) throws {
        guard let folder = data.data else {
            throw CLIError("\(modelPath) is an image classifier: give the labeled images with --data DIR (a folder per label)")
        }
        if !DataFiles.isRealFolder(URL(fileURLWithPath: folder)) && !DataFiles.isRealFolder(URL(fileURLWithPath: folder).resolvingSymlinksInPath()) {
            let what = DataFiles.problem(with: URL(fileURLWithPath: folder)) ?? "it is a file"
            throw CLIError("--data \(folder): \(what); \(modelPath) is an image classifier, which evaluates on a folder with a subfolder of images per label")
        }
        if let mistakes = try data.checkedMistakesPicture(modelPath: modelPath),
           OutputGuard.resolved(mistakes).hasPrefix(OutputGuard.resolved(folder) + "/") {
            throw ValidationError("--mistakes \(mistakes) is inside the evaluated folder \(folder), where it would become one of its images: choose another path")
        }
        let model = try ImageClassifierModel.read(from: URL(fileURLWithPath: modelPath))
        let backbone = try loadBackbone(nil)
        let evaluation = try ImageClassifierEvaluator.evaluate(
            model: model, modelPath: modelPath, backbone: backbone, data: URL(fileURLWithPath: folder),
            featureCache: FeatureCache(directory: FeatureCache.defaultDirectory()), communicator: job,
            observer: job.isRoot ? Console.observer(quiet: json) : nil)
        if json {
            try Console.printJSON(evaluation)
        } else {
            Console.print("\(modelPath) on \(folder):")
            Console.print(MetricsTable.render(evaluation.metrics))
        }
        if let path = data.mistakes, job.isRoot { try drawMistakes(evaluation.mistakes, to: path) }
    }

    /// The most mistakes one picture shows (rows of `mistakeColumns`).
    static let mistakesShown = 48, mistakeColumns = 6

    /// Draws up to `mistakesShown` mistakes, most confident first, as square tiles captioned
    /// "<label> as <prediction> <confidence>", and lists their paths (all on stderr).
    static func drawMistakes(_ mistakes: [ImageEvaluationPrediction], to path: String) throws {
        guard !mistakes.isEmpty else {
            Console.note("no image was predicted wrong: nothing to draw, \(path) not written")
            return
        }
        let shown = Array(mistakes.prefix(mistakesShown)), tile = 192
        var frames: [(image: RGBImage, label: String)] = []
        for mistake in shown {
            let caption = "\(mistake.truth) as \(mistake.predicted) \(Console.percent(mistake.confidence))"
            let image = try ImageDecoder.decode(contentsOf: mistake.file, options: ImageDecodingOptions(minimumShortSide: tile)).image
            frames.append((try image.resizedAndCenterCropped(shortSide: tile, cropWidth: tile, cropHeight: tile).rgbImage(), caption))
        }
        try ContactSheet.make(frames, columns: mistakeColumns, tileWidth: tile).write(to: URL(fileURLWithPath: path))
        Console.note("drew \(shown.count) of \(mistakes.count) mistake\(mistakes.count == 1 ? "" : "s") on \(path), most confident first:")
        for (index, mistake) in shown.enumerated() {
            Console.note("  \(index + 1). \(mistake.file.path): \(mistake.truth), predicted \(mistake.predicted) (\(Console.percent(mistake.confidence)))")
        }
    }

    /// The JSON `predict --json` prints per image.
    struct PredictionReport: Encodable {
        var image: String
        var predictions: [ClassificationPrediction]
    }

    static func predict(modelPath: String, options: PredictCommand) throws {
        let classifier = try ImageClassifier(model: try ImageClassifierModel.read(from: URL(fileURLWithPath: modelPath)),
                                             backbone: try loadBackbone(nil), modelPath: modelPath)
        var reports: [PredictionReport] = [], failures = 0
        for input in options.inputs {
            do {
                let predictions = Array(try classifier.predictions(for: URL(fileURLWithPath: input)).prefix(options.top))
                if options.json {
                    reports.append(PredictionReport(image: input, predictions: predictions))
                } else {
                    Console.print(input)
                    let width = predictions.map(\.label.terminalWidth).max() ?? 0
                    for prediction in predictions {
                        Console.print("  " + prediction.label.padded(toWidth: width)
                                      + "  " + Console.percent(prediction.confidence))
                    }
                }
            } catch {
                failures += 1
                Console.error((error as? LocalizedError)?.errorDescription ?? "\(error)")
            }
        }
        if options.json { try Console.printJSON(reports) }
        if failures > 0 { throw ExitCode.failure }
    }
}
