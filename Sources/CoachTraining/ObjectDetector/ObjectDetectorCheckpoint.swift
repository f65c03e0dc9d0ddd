import CoachData
import CoachModels
import Foundation

/// One reported training interval, as a checkpoint stores it.
struct DetectorIterationRecord: Codable, Equatable, Sendable {
    var iteration: Int
    var trainingLoss: Double
    var learningRate: Double
    var validationLoss: Double?
}

/// The state of an interrupted object-detector training run, written atomically after
/// every report as a Coach model file of task `object-detector-checkpoint`: the head's
/// weights (`model.*`), AdamW's moments and step (`optimizer.*`) and, in
/// `extra.checkpoint`, the iterations done, their history, the configuration and a
/// fingerprint of the data. Random state needs no saving: every random choice derives
/// from the seed and the iteration, epoch or view alone.
struct ObjectDetectorCheckpoint {
    static let task: ModelTask = "object-detector-checkpoint"

    struct Record: Codable, Equatable {
        var completedIterations: Int
        var configuration: ObjectDetectorTrainingConfiguration
        var dataFingerprint: String
        var labels: [String]
        var history: [DetectorIterationRecord]
    }

    var record: Record
    var modelState: [String: Tensor]
    var optimizerState: [String: Tensor]

    /// Writes the checkpoint to `url` atomically.
    func write(to url: URL) throws {
        var tensors: [String: Tensor] = [:]
        for (name, value) in modelState { tensors["model.\(name)"] = value }
        for (name, value) in optimizerState { tensors["optimizer.\(name)"] = value }
        let metadata = ModelMetadata(task: Self.task, classLabels: record.labels,
                                     extra: ["checkpoint": try JSONValue(encoding: record)])
        try ModelFile(metadata: metadata, tensors: tensors).write(to: url)
    }

    /// Reads a checkpoint written by `write(to:)`.
    static func read(from url: URL) throws -> ObjectDetectorCheckpoint {
        let file = try ModelFile.read(from: url)
        guard file.metadata.task == task else {
            throw ObjectDetectorTrainingError.checkpointMismatch(path: url.path, reason: "it is a '\(file.metadata.task)' file, not an object-detector checkpoint")
        }
        guard let record = try file.metadata.extraValue("checkpoint", as: Record.self) else {
            throw ObjectDetectorTrainingError.checkpointMismatch(path: url.path, reason: "its metadata lacks the 'checkpoint' record")
        }
        var model: [String: Tensor] = [:], optimizer: [String: Tensor] = [:]
        for (name, value) in file.tensors {
            if name.hasPrefix("model.") { model[String(name.dropFirst(6))] = value }
            else if name.hasPrefix("optimizer.") { optimizer[String(name.dropFirst(10))] = value }
        }
        return ObjectDetectorCheckpoint(record: record, modelState: model, optimizerState: optimizer)
    }

    /// Throws unless this checkpoint continues a run with `configuration` on the same data.
    func check(configuration: ObjectDetectorTrainingConfiguration, fingerprint: String, iterations: Int, path: String) throws {
        var saved = record.configuration, wanted = configuration
        // The iteration budget may be raised on resume; everything else must match.
        saved.maximumIterations = nil
        wanted.maximumIterations = nil
        if saved != wanted {
            throw ObjectDetectorTrainingError.checkpointMismatch(path: path, reason: "it was written with different training options")
        }
        if record.dataFingerprint != fingerprint {
            throw ObjectDetectorTrainingError.checkpointMismatch(path: path, reason: "it was written for different training data")
        }
        if record.completedIterations > iterations {
            throw ObjectDetectorTrainingError.checkpointMismatch(
                path: path, reason: "it has already run \(record.completedIterations) iterations, more than the \(iterations) asked for")
        }
    }

    /// A digest of the training data: labels, image names and sizes, boxes.
    static func fingerprint(training: DetectionDataset, labels: [String]) -> String {
        var text = labels.joined(separator: "\u{1}") + "\n"
        for image in training.images {
            text += "\(image.name) \(image.width) \(image.height)"
            for o in image.objects { text += " \(o.label) \(o.box.minX) \(o.box.minY) \(o.box.maxX) \(o.box.maxY)" }
            text += "\n"
        }
        if let digest = try? FileDigest.sha256(of: Data(text.utf8)) { return digest }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a, should OpenSSL fail
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return String(hash, radix: 16)
    }

    /// The default checkpoint location for a model written to `output`: `<output minus .h5>.checkpoint.h5`.
    static func url(for output: URL) -> URL {
        let base = output.pathExtension.lowercased() == "h5" ? output.deletingPathExtension() : output
        return base.appendingPathExtension("checkpoint").appendingPathExtension("h5")
    }
}
