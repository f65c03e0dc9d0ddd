import ArgumentParser
import CoachData
import CoachModels
import CoachRuntime
import CoachTraining
import Foundation

/// `coach evaluate` and `coach predict` for image classifiers.
enum ImageClassifierTaskCommands: TaskCommandHandler {
    static let predictOptions: Set<TaskOption> = [.top]
    static let evaluateOptions: Set<TaskOption> = []

    static func evaluate(modelPath: String, data: EvaluationDataOptions, json: Bool, job: Communicator) throws {
        guard let folder = data.data else {
            throw CLIError("\(modelPath) is an image classifier: give the labeled images with --data DIR (a folder per label)")
        }
        if !DataFiles.isRealFolder(URL(fileURLWithPath: folder)) && !DataFiles.isRealFolder(URL(fileURLWithPath: folder).resolvingSymlinksInPath()) {
            let what = DataFiles.problem(with: URL(fileURLWithPath: folder)) ?? "it is a file"
            throw CLIError("--data \(folder): \(what); \(modelPath) is an image classifier, which evaluates on a folder with a subfolder of images per label")
        }
        let model = try ImageClassifierModel.read(from: URL(fileURLWithPath: modelPath))
        let backbone = try loadBackbone(nil)
        let evaluation = try ImageClassifierEvaluator.evaluate(
            model: model, modelPath: modelPath, backbone: backbone, data: URL(fileURLWithPath: folder),
            featureCache: FeatureCache(directory: FeatureCache.defaultDirectory()), communicator: job,
            observer: job.isRoot ? Console.observer(quiet: json) : nil)
        if json {
            try Console.printJSON(evaluation.metrics)
        } else {
            Console.print("\(modelPath) on \(folder):")
            Console.print(MetricsTable.render(evaluation.metrics))
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
