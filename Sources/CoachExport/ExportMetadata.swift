import CoachModels
import Foundation

/// The descriptive entries of an exported model (ONNX `metadata_props`, Core ML `userDefined`
/// metadata), drawn from the Coach model file's metadata.
///
/// Always: `classLabels` (a JSON array, in output order), `task`, `input` (what the input
/// tensor holds), `coachVersion`. When the file has them: `name`, `description` (its summary),
/// `author`, `license` and `version` (string entries of its `extra` metadata), `training` and
/// `metrics` (sorted-key JSON, the training summary `coach inspect` shows) and `backbone`
/// (name and SHA-256 of the backbone file the model was trained on).
public enum ExportMetadata {
    /// The entries for a model file's `metadata`; `inputDescription` says what the input holds.
    public static func entries(for metadata: ModelMetadata, inputDescription: String) -> [String: String] {
        var entries: [String: String] = [
            "classLabels": json(metadata.classLabels),
            "task": metadata.task.rawValue,
            "input": inputDescription,
            "coachVersion": metadata.creator.coachVersion,
        ]
        entries["name"] = metadata.name
        entries["description"] = metadata.summary
        for key in ["author", "license", "version"] {
            if case let .string(value)? = metadata.extra[key] { entries[key] = value }
        }
        if !metadata.training.isEmpty { entries["training"] = json(metadata.training) }
        if !metadata.metrics.isEmpty { entries["metrics"] = json(metadata.metrics) }
        if let backbone = metadata.backbone { entries["backbone"] = "\(backbone.name) (SHA-256 \(backbone.sha256))" }
        return entries
    }

    /// Core ML's `Metadata` for a model file's `metadata`: the summary as the short description,
    /// `author`, `license` and `version` from its `extra` entries (else "Coach" as the author and
    /// the Coach version that trained it), and every entry of `entries` as user-defined metadata.
    public static func coreML(for metadata: ModelMetadata, inputDescription: String) -> CoreMLMetadata {
        var result = CoreMLMetadata()
        let all = entries(for: metadata, inputDescription: inputDescription)
        result.shortDescription = metadata.summary ?? ""
        result.author = all["author"] ?? "Coach"
        result.license = all["license"] ?? ""
        result.version = all["version"] ?? "Coach \(metadata.creator.coachVersion)"
        result.userDefined = all
        return result
    }

    /// Sorted-key JSON text (non-finite numbers as strings), the same bytes for the same value.
    static func json<Value: Encodable>(_ value: Value) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity",
                                                                      negativeInfinity: "-Infinity", nan: "NaN")
        // Arrays of strings, string-keyed dictionaries of numbers and JSON values always encode.
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}
