import Foundation

/// What a model file describes besides its weights: task, labels, input, training and
/// evaluation, the backbone it needs and who wrote it.
///
/// Stored as sorted-key UTF-8 JSON in the file's root attribute `metadata`.
/// Forward compatibility: every field has a default when absent, unknown keys are
/// ignored on reading, and later versions add new fields as optionals (or with
/// defaults) — or put task-specific values in `extra` — so older files keep loading.
/// There are no timestamps: the same model always gives the same bytes.
public struct ModelMetadata: Codable, Equatable, Sendable {
    /// What the model does (e.g. `image-classifier`).
    public var task: ModelTask
    /// A short name, e.g. `efficientnet-lite0` or the user's model name.
    public var name: String?
    /// Free text a user gave the model.
    public var summary: String?
    /// Class labels in output order (empty for a backbone or a regressor).
    public var classLabels: [String]
    /// What the model consumes and how raw input is turned into its tensor.
    public var input: InputSpecification?
    /// The training configuration (recipe, epochs, seed, augmentations, …), free-form.
    public var training: [String: JSONValue]
    /// Evaluation metrics by name (e.g. `validation.accuracy`).
    public var metrics: [String: Double]
    /// The shared backbone this model runs on top of, when it does not contain it.
    public var backbone: BackboneReference?
    /// Which Coach wrote the file.
    public var creator: CreatorInfo
    /// Task-specific fields not (yet) modelled above, free-form.
    public var extra: [String: JSONValue]

    /// Metadata for `task`; every other field starts empty.
    public init(task: ModelTask, name: String? = nil, summary: String? = nil, classLabels: [String] = [],
                input: InputSpecification? = nil, training: [String: JSONValue] = [:],
                metrics: [String: Double] = [:], backbone: BackboneReference? = nil,
                creator: CreatorInfo = CreatorInfo(), extra: [String: JSONValue] = [:]) {
        self.task = task
        self.name = name
        self.summary = summary
        self.classLabels = classLabels
        self.input = input
        self.training = training
        self.metrics = metrics
        self.backbone = backbone
        self.creator = creator
        self.extra = extra
    }

    private enum CodingKeys: String, CodingKey {
        case task, name, summary, classLabels, input, training, metrics, backbone, creator, extra
    }

    /// Decodes metadata; only `task` is required, everything else defaults to empty.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        task = try container.decode(ModelTask.self, forKey: .task)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        summary = try container.decodeIfPresent(String.self, forKey: .summary)
        classLabels = try container.decodeIfPresent([String].self, forKey: .classLabels) ?? []
        input = try container.decodeIfPresent(InputSpecification.self, forKey: .input)
        training = try container.decodeIfPresent([String: JSONValue].self, forKey: .training) ?? [:]
        metrics = try container.decodeIfPresent([String: Double].self, forKey: .metrics) ?? [:]
        backbone = try container.decodeIfPresent(BackboneReference.self, forKey: .backbone)
        creator = try container.decodeIfPresent(CreatorInfo.self, forKey: .creator) ?? CreatorInfo(coachVersion: "unknown")
        extra = try container.decodeIfPresent([String: JSONValue].self, forKey: .extra) ?? [:]
    }

    /// Decodes `extra[key]` as `type`; `nil` when the key is absent.
    ///
    /// Throws `ModelFileError.malformedMetadata` naming `extra.<key>` when the value does
    /// not have the expected form.
    public func extraValue<Value: Decodable>(_ key: String, as type: Value.Type) throws -> Value? {
        guard let value = extra[key] else { return nil }
        do {
            return try value.decoded(as: type)
        } catch let error as DecodingError {
            let problem = MetadataProblem(error, prefix: ["extra", key])
            throw ModelFileError.malformedMetadata(path: nil, jsonPath: problem.jsonPath, reason: problem.reason)
        }
    }

    /// The sorted-key JSON text stored in the file.
    public func jsonString() throws -> String {
        do {
            let data = try MetadataCoding.encoder().encode(self)
            return String(decoding: data, as: UTF8.self)
        } catch {
            throw ModelFileError.metadataNotEncodable(reason: "\(error)")
        }
    }

    /// Parses metadata JSON; errors name the JSON path (`path` names the file, if any).
    public static func parse(json: String, path: String? = nil) throws -> ModelMetadata {
        do {
            return try MetadataCoding.decoder().decode(ModelMetadata.self, from: Data(json.utf8))
        } catch let error as DecodingError {
            let problem = MetadataProblem(error, prefix: [])
            throw ModelFileError.malformedMetadata(path: path, jsonPath: problem.jsonPath, reason: problem.reason)
        }
    }
}

/// The kind of model a file holds; an open set so newer tasks still load.
public struct ModelTask: RawRepresentable, Codable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The task's name as stored, e.g. `image-classifier`.
    public var rawValue: String

    /// A task named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A task from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// Decodes the task from a plain string.
    public init(from decoder: Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the task as a plain string.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The stored name.
    public var description: String { rawValue }

    /// Classifies whole images (folder-per-label datasets).
    public static let imageClassifier: ModelTask = "image-classifier"
    /// Finds labelled boxes in images.
    public static let objectDetector: ModelTask = "object-detector"
    /// Classifies windows of body- or hand-pose sequences.
    public static let actionClassifier: ModelTask = "action-classifier"
    /// Classifies single hand poses.
    public static let handPoseClassifier: ModelTask = "hand-pose-classifier"
    /// A pretrained feature extractor other models build on.
    public static let backbone: ModelTask = "backbone"
}

/// A model's pointer to the shared backbone it needs (instead of a copy of its weights).
public struct BackboneReference: Codable, Equatable, Sendable {
    /// The backbone's name, e.g. `efficientnet-lite0`.
    public var name: String
    /// The lowercase hex SHA-256 of the backbone's model file.
    public var sha256: String
    /// The backbone file's usual name, as a hint for finding it (e.g. `efficientnet-lite0.h5`).
    public var fileName: String?

    /// A reference to backbone `name` whose file has digest `sha256`.
    public init(name: String, sha256: String, fileName: String? = nil) {
        self.name = name
        self.sha256 = sha256
        self.fileName = fileName
    }
}

/// Which Coach wrote a model file (deliberately without a date, for determinism).
public struct CreatorInfo: Codable, Equatable, Sendable {
    /// The Coach version that wrote the file.
    public var coachVersion: String
    /// How the file was made, e.g. `coach import-backbone` (optional).
    public var tool: String?

    /// Creation info for `coachVersion` (default: this library's version).
    public init(coachVersion: String = CoachVersion.current, tool: String? = nil) {
        self.coachVersion = coachVersion
        self.tool = tool
    }
}

/// The version of the Coach libraries, recorded in every model file they write.
public enum CoachVersion {
    /// The current version string.
    public static let current = "0.1.0"
}

/// A `DecodingError` turned into a JSON path and a sentence.
struct MetadataProblem {
    var jsonPath: String
    var reason: String

    init(_ error: DecodingError, prefix: [String]) {
        func path(_ codingPath: [CodingKey], appending key: CodingKey? = nil) -> String {
            let keys = prefix + (codingPath + (key.map { [$0] } ?? [])).map { key in
                key.intValue.map { "[\($0)]" } ?? key.stringValue
            }
            var text = "$"
            for key in keys { text += key.hasPrefix("[") ? key : ".\(key)" }
            return text
        }
        switch error {
        case .keyNotFound(let key, let context):
            jsonPath = path(context.codingPath, appending: key)
            reason = "required key '\(key.stringValue)' is missing"
        case .typeMismatch(let type, let context):
            jsonPath = path(context.codingPath)
            reason = "expected \(MetadataProblem.describe(type)); \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            jsonPath = path(context.codingPath)
            reason = "expected \(MetadataProblem.describe(type)), found null"
        case .dataCorrupted(let context):
            jsonPath = path(context.codingPath)
            let underlying = (context.underlyingError as NSError?)?.localizedDescription
            reason = "not valid JSON: " + (underlying ?? context.debugDescription)
        @unknown default:
            jsonPath = path([])
            reason = "\(error)"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Double.Type, is Float.Type: return "a number"
        case is Int.Type: return "an integer"
        case is Bool.Type: return "true or false"
        default:
            let name = "\(type)"
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "a \(name)"
        }
    }
}
