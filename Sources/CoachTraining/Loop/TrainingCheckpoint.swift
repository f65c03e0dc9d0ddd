import CoachModels
import CoachNN
import Foundation

/// A training configuration that checkpoints can store and compare.
protocol CheckpointableConfiguration: Codable, Equatable {
    /// The task name of the checkpoint files (e.g. `action-classifier-checkpoint`).
    static var checkpointTask: ModelTask { get }
    /// What the checkpoint belongs to, for messages (e.g. `action-classifier`).
    static var checkpointKind: String { get }
    /// The configuration as free-form JSON (to name the options that changed).
    var metadata: [String: JSONValue] { get }
}

/// One finished training iteration as a checkpoint stores it.
struct IterationRecord: Codable, Equatable, Sendable {
    var iteration: Int
    var trainingLoss: Double
    var trainingAccuracy: Double
    var validationLoss: Double?
    var validationAccuracy: Double?
    var learningRate: Double
    var isBest: Bool

    var summary: IterationSummary {
        IterationSummary(iteration: iteration, totalIterations: 0, trainingLoss: trainingLoss,
                         trainingAccuracy: trainingAccuracy, validationLoss: validationLoss,
                         validationAccuracy: validationAccuracy, learningRate: learningRate, isBest: isBest)
    }
}

/// The state of an interrupted training run of the pose classifiers, written atomically after
/// every iteration as a Coach model file of task `Configuration.checkpointTask`: the network's
/// weights (`model.*`), the best weights so far (`best.*`), AdamW's moments and step
/// (`optimizer.*`), the moving average of the weights when training keeps one (`average.*`),
/// and in `extra.checkpoint` the iterations done, their history, the configuration and a
/// fingerprint of the data. Random state needs no saving: iteration `i` draws
/// from a generator derived from the seed and `i` alone, so a resumed run continues exactly as an
/// uninterrupted one would.
struct TrainingCheckpoint<Configuration: CheckpointableConfiguration> {
    struct Record: Codable, Equatable {
        var completedIterations: Int
        var configuration: Configuration
        var dataFingerprint: String
        var labels: [String]
        var history: [IterationRecord]
        var stoppedEarly: Bool
    }

    var record: Record
    var modelState: [String: Tensor]
    var bestState: [String: Tensor]?
    var optimizerState: [String: Tensor]
    /// The moving average of the weights, when training averages them.
    var averageState: [String: Tensor]? = nil

    /// Writes the checkpoint to `url` atomically.
    func write(to url: URL) throws {
        var tensors: [String: Tensor] = [:]
        for (name, value) in modelState { tensors["model.\(name)"] = value }
        for (name, value) in bestState ?? [:] { tensors["best.\(name)"] = value }
        for (name, value) in optimizerState { tensors["optimizer.\(name)"] = value }
        for (name, value) in averageState ?? [:] { tensors["average.\(name)"] = value }
        let metadata = ModelMetadata(task: Configuration.checkpointTask, classLabels: record.labels,
                                     extra: ["checkpoint": try JSONValue(encoding: record)])
        try ModelFile(metadata: metadata, tensors: tensors).write(to: url)
    }

    /// Reads a checkpoint written by `write(to:)`.
    static func read(from url: URL) throws -> TrainingCheckpoint {
        let file = try ModelFile.read(from: url)
        guard file.metadata.task == Configuration.checkpointTask else {
            throw ActionTrainingError.checkpointMismatch(path: url.path, reason: "it is a '\(file.metadata.task)' file, not a checkpoint of \(Configuration.checkpointKind) training")
        }
        guard let record = try file.metadata.extraValue("checkpoint", as: Record.self) else {
            throw ActionTrainingError.checkpointMismatch(path: url.path, reason: "its metadata lacks the 'checkpoint' record")
        }
        var model: [String: Tensor] = [:], best: [String: Tensor] = [:], optimizer: [String: Tensor] = [:]
        var average: [String: Tensor] = [:]
        for (name, value) in file.tensors {
            if name.hasPrefix("model.") { model[String(name.dropFirst(6))] = value }
            else if name.hasPrefix("best.") { best[String(name.dropFirst(5))] = value }
            else if name.hasPrefix("optimizer.") { optimizer[String(name.dropFirst(10))] = value }
            else if name.hasPrefix("average.") { average[String(name.dropFirst(8))] = value }
        }
        return TrainingCheckpoint(record: record, modelState: model, bestState: best.isEmpty ? nil : best,
                                  optimizerState: optimizer, averageState: average.isEmpty ? nil : average)
    }

    /// The default checkpoint location for a model written to `output`: `<output minus .h5>.checkpoint.h5`.
    static func url(for output: URL) -> URL {
        let base = output.pathExtension.lowercased() == "h5" ? output.deletingPathExtension() : output
        return base.appendingPathExtension("checkpoint").appendingPathExtension("h5")
    }

    /// Throws when `record` does not belong to a run of `configuration` on data with `fingerprint` and `labels`.
    static func check(_ record: Record, path: String, configuration: Configuration, fingerprint: String,
                      labels: [String]) throws {
        if record.configuration != configuration {
            let old = record.configuration.metadata, new = configuration.metadata
            let changed = Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }.sorted()
            throw ActionTrainingError.checkpointMismatch(path: path, reason: "it was made with different options (\(changed.joined(separator: ", ")))")
        }
        if record.dataFingerprint != fingerprint || record.labels != labels {
            throw ActionTrainingError.checkpointMismatch(path: path, reason: "it was made from different data")
        }
        if record.history.count != record.completedIterations {
            throw ActionTrainingError.checkpointMismatch(path: path, reason: "its history is inconsistent")
        }
    }
}
