import ArgumentParser
import CoachModels
import Foundation

/// `coach inspect`: what a model file holds, for people (`--json` for programs).
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a model file's format, task, labels, input, training, metrics and weights.",
        discussion: "Reads only the metadata and tensor shapes, never the weights' values.")

    @Argument(help: "The model file (.h5).")
    var model: String

    @Flag(help: "Print machine-readable JSON instead of text.")
    var json = false

    @Flag(help: "List every tensor's name and shape.")
    var tensors = false

    /// The JSON `--json` prints.
    struct Report: Encodable {
        struct TensorInfo: Encodable {
            var name: String
            var shape: [Int]
        }
        var path: String
        var sha256: String
        var format: String
        var formatVersion: Int
        /// Whether the file carries Coach's weights checksum and the weights matched it.
        var weightsVerified: Bool
        var metadata: ModelMetadata
        var parameterCount: Int
        var tensorCount: Int
        var tensors: [TensorInfo]?
    }

    func run() throws {
        let url = URL(fileURLWithPath: model)
        let summary = try ModelFileSummary.read(from: url)
        // Every weight is read too, so a file whose weights no longer match their recorded SHA-256
        // is reported as damaged here as it is by the commands that use it.
        let file = try ModelFile.read(from: url)
        // An old file without Coach's weights checksum: say that it cannot be verified, not that it is fine.
        if let warning = file.unverifiedWeightsWarning { Console.warning(warning) }
        let digest = try FileDigest.sha256(ofFileAt: url)
        if json {
            let report = Report(
                path: model, sha256: digest, format: ModelFile.formatName, formatVersion: summary.formatVersion,
                weightsVerified: file.weightsAreChecked,
                metadata: summary.metadata, parameterCount: summary.parameterCount,
                tensorCount: summary.tensorShapes.count,
                tensors: tensors ? summary.tensorNames.map { Report.TensorInfo(name: $0, shape: summary.tensorShapes[$0]!) } : nil)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            encoder.nonConformingFloatEncodingStrategy = .convertToString(
                positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
            return
        }
        print(text(summary, digest: digest))
    }

    private func text(_ summary: ModelFileSummary, digest: String) -> String {
        let metadata = summary.metadata
        var lines: [(String, String)] = [
            ("Model file", model),
            ("SHA-256", digest),
            ("Format", "\(ModelFile.formatName), version \(summary.formatVersion)"),
            ("Task", metadata.task.rawValue),
        ]
        if let name = metadata.name { lines.append(("Name", name)) }
        if let text = metadata.summary { lines.append(("Summary", text)) }
        lines.append(("Created by", "Coach \(metadata.creator.coachVersion)" + (metadata.creator.tool.map { " (\($0))" } ?? "")))
        lines.append(("Input", describe(metadata.input)))
        lines.append(("Labels", describe(labels: metadata.classLabels)))
        if let backbone = metadata.backbone {
            lines.append(("Backbone", "requires \(backbone.name) (SHA-256 \(backbone.sha256))"
                          + (backbone.fileName.map { ", usually \($0)" } ?? "")))
        } else {
            lines.append(("Backbone", "none required"))
        }
        lines.append(("Training", metadata.training.isEmpty ? "(not recorded)" : ""))
        for key in metadata.training.keys.sorted() { lines.append(("  \(key)", render(metadata.training[key]!))) }
        lines.append(("Metrics", metadata.metrics.isEmpty ? "(none)" : ""))
        for key in metadata.metrics.keys.sorted() { lines.append(("  \(key)", render(number: metadata.metrics[key]!))) }
        if !metadata.extra.isEmpty {
            lines.append(("Extra", metadata.extra.keys.sorted().joined(separator: ", ") + " (see --json)"))
        }
        lines.append(("Parameters", "\(groupedDigits(summary.parameterCount)) in \(summary.tensorShapes.count) tensors"))
        let width = lines.map(\.0.count).max() ?? 0
        var output = lines.map { label, value in
            value.isEmpty ? label : label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value
        }
        if tensors {
            output.append("Tensors")
            let nameWidth = summary.tensorNames.map(\.count).max() ?? 0
            for name in summary.tensorNames {
                let shape = summary.tensorShapes[name]!
                output.append("  " + name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
                              + "  [" + shape.map(String.init).joined(separator: ", ") + "]")
            }
        } else if !summary.tensorShapes.isEmpty {
            output.append("(--tensors lists every tensor's name and shape)")
        }
        return output.joined(separator: "\n")
    }

    private func describe(_ input: InputSpecification?) -> String {
        if let image = input?.image {
            var text = "image \(image.width)×\(image.height) \(image.channelOrder) \(image.layout), pixels "
                + "\(render(number: image.pixelRange.minimum))…\(render(number: image.pixelRange.maximum)), "
                + "normalised (x − \(list(image.mean))) / \(list(image.standardDeviation))"
            if let resize = image.resize {
                text += "; resize: \(resize.method)" + (resize.shortSide.map { " (short side \($0))" } ?? "")
            }
            return text
        }
        if let pose = input?.pose {
            var parts: [String] = []
            if let window = pose.windowLength { parts.append("windows of \(window) frames") } else { parts.append("single poses") }
            if let rate = pose.frameRate { parts.append("at \(render(number: rate)) fps") }
            parts.append("\(pose.jointNames.count) joints (\(pose.jointNames.joined(separator: ", ")))")
            parts.append("keypoints \(pose.keypointChannels.joined(separator: ", ")), origin \(pose.keypointOrigin.rawValue)")
            return "pose " + parts.joined(separator: ", ")
        }
        return "(not recorded)"
    }

    private func describe(labels: [String]) -> String {
        guard !labels.isEmpty else { return "(none)" }
        let shown = labels.prefix(20).joined(separator: ", ")
        let more = labels.count > 20 ? ", … (\(labels.count - 20) more; --json lists all)" : ""
        return "\(labels.count): \(shown)\(more)"
    }

    private func list(_ values: [Double]) -> String {
        "[" + values.map { render(number: $0) }.joined(separator: ", ") + "]"
    }

    private func render(number: Double) -> String {
        if number.isFinite, number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
        return "\(number)"
    }

    private func render(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number): return render(number: number)
        case .string(let string): return string
        case .array(let items): return "[" + items.map(render).joined(separator: ", ") + "]"
        case .object(let members):
            return "{" + members.keys.sorted().map { "\($0): \(render(members[$0]!))" }.joined(separator: ", ") + "}"
        }
    }
}
