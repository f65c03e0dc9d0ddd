import CoachModels
import CoachNN
import Foundation

/// One finished training iteration as a checkpoint stores it.
struct ActionIterationRecord: Codable, Equatable, Sendable {
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

/// The state of an interrupted action-classifier training run, written atomically after every
/// iteration as a Coach model file of task `action-classifier-checkpoint`: the network's weights
/// (`model.*`), the best weights so far (`best.*`), AdamW's moments and step (`optimizer.*`), and
/// in `extra.checkpoint` the iterations done, their history, the configuration and a fingerprint
/// of the data. Random state needs no saving: iteration `i` draws from a generator derived from
/// the seed and `i` alone, so a resumed run continues exactly as an uninterrupted one would.
struct ActionClassifierCheckpoint {
    static let task: ModelTask = "action-classifier-checkpoint"

    struct Record: Codable, Equatable {
        var completedIterations: Int
        var configuration: ActionClassifierTrainingConfiguration
        var dataFingerprint: String
        var labels: [String]
        var history: [ActionIterationRecord]
        var stoppedEarly: Bool
    }

    var record: Record
    var modelState: [String: Tensor]
    var bestState: [String: Tensor]?
    var optimizerState: [String: Tensor]

    /// Writes the checkpoint to `url` atomically.
    func write(to url: URL) throws {
        var tensors: [String: Tensor] = [:]
        for (name, value) in modelState { tensors["model.\(name)"] = value }
        for (name, value) in bestState ?? [:] { tensors["best.\(name)"] = value }
        for (name, value) in optimizerState { tensors["optimizer.\(name)"] = value }
        let metadata = ModelMetadata(task: ActionClassifierCheckpoint.task, classLabels: record.labels,
                                     extra: ["checkpoint": try JSONValue(encoding: record)])
        try ModelFile(metadata: metadata, tensors: tensors).write(to: url)
    }

    /// Reads a checkpoint written by `write(to:)`.
    static func read(from url: URL) throws -> ActionClassifierCheckpoint {
        let file = try ModelFile.read(from: url)
        guard file.metadata.task == task else {
            throw ActionTrainingError.checkpointMismatch(path: url.path, reason: "it is a '\(file.metadata.task)' file, not an action-classifier checkpoint")
        }
        guard let record = try file.metadata.extraValue("checkpoint", as: Record.self) else {
            throw ActionTrainingError.checkpointMismatch(path: url.path, reason: "its metadata lacks the 'checkpoint' record")
        }
        var model: [String: Tensor] = [:], best: [String: Tensor] = [:], optimizer: [String: Tensor] = [:]
        for (name, value) in file.tensors {
            if name.hasPrefix("model.") { model[String(name.dropFirst(6))] = value }
            else if name.hasPrefix("best.") { best[String(name.dropFirst(5))] = value }
            else if name.hasPrefix("optimizer.") { optimizer[String(name.dropFirst(10))] = value }
        }
        return ActionClassifierCheckpoint(record: record, modelState: model, bestState: best.isEmpty ? nil : best,
                                          optimizerState: optimizer)
    }

    /// The default checkpoint location for a model written to `output`: `<output minus .h5>.checkpoint.h5`.
    static func url(for output: URL) -> URL {
        let base = output.pathExtension.lowercased() == "h5" ? output.deletingPathExtension() : output
        return base.appendingPathExtension("checkpoint").appendingPathExtension("h5")
    }
}
