import CoachData
import Foundation

/// A trained image classifier as stored in a model file: the head, the class labels, the
/// input encoding and the backbone it runs on (by name and SHA-256 — the backbone's
/// weights are not copied, so the file is small).
public struct ImageClassifierModel: Equatable, Sendable {
    /// Class labels in output order.
    public var labels: [String]
    /// The trained head over the backbone's pooled features.
    public var head: ImageClassifierHead
    /// How images are turned into backbone input.
    public var encoding: ImageInputEncoding
    /// The backbone activations the head reads (`head` for files that do not say).
    public var featureLayers: ImageFeatureLayers
    /// The backbone the head was trained on.
    public var backbone: BackboneReference
    /// The model's name, if any.
    public var name: String?
    /// The training configuration (free-form, shown by `coach inspect`).
    public var training: [String: JSONValue]
    /// Evaluation metrics by name (e.g. `validation.accuracy`).
    public var metrics: [String: Double]

    /// A model from its parts.
    public init(labels: [String], head: ImageClassifierHead, encoding: ImageInputEncoding = .efficientNetLite0,
                featureLayers: ImageFeatureLayers = .head, backbone: BackboneReference, name: String? = nil,
                training: [String: JSONValue] = [:], metrics: [String: Double] = [:]) {
        self.labels = labels
        self.head = head
        self.encoding = encoding
        self.featureLayers = featureLayers
        self.backbone = backbone
        self.name = name
        self.training = training
        self.metrics = metrics
    }

    /// The model file: task `image-classifier`, labels, input specification, backbone
    /// reference, training and metrics in the metadata; the head's tensors as weights.
    public func modelFile() -> ModelFile {
        var extra: [String: JSONValue] = ["head": .string(head.kind)]
        extra["headLayers"] = .array(head.layers.map { .number(Double($0.weight.shape[1])) })
        extra["features"] = .string(featureLayers.rawValue)
        let metadata = ModelMetadata(task: .imageClassifier, name: name, classLabels: labels,
                                     input: InputSpecification(image: encoding.specification), training: training,
                                     metrics: metrics, backbone: backbone,
                                     creator: CreatorInfo(tool: "coach train image-classifier"), extra: extra)
        return ModelFile(metadata: metadata, tensors: head.tensors)
    }

    /// Reads the classifier stored in `file` (`path` names it in errors).
    public init(file: ModelFile, path: String) throws {
        let metadata = file.metadata
        guard metadata.task == .imageClassifier else {
            throw ImageClassifierModelError.wrongTask(path: path, task: metadata.task.rawValue)
        }
        guard let backbone = metadata.backbone else { throw ImageClassifierModelError.missingBackbone(path: path) }
        guard let image = metadata.input?.image else {
            throw ImageClassifierModelError.malformed(path: path, problems: ["metadata key 'input.image' is missing"])
        }
        var problems: [String] = []
        if metadata.classLabels.count < 2 { problems.append("it has \(metadata.classLabels.count) class labels, at least 2 are needed") }
        if Set(metadata.classLabels).count != metadata.classLabels.count { problems.append("its class labels repeat") }
        switch metadata.extra["features"] {
        case nil: featureLayers = .head
        case let .string(name)? where ImageFeatureLayers(rawValue: name) != nil: featureLayers = ImageFeatureLayers(rawValue: name)!
        default:
            featureLayers = .head
            problems.append("metadata key 'extra.features' must be one of \(ImageFeatureLayers.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", "))")
        }
        if !problems.isEmpty { throw ImageClassifierModelError.malformed(path: path, problems: problems) }
        encoding = try ImageInputEncoding(specification: image, path: path)
        head = try ImageClassifierHead(tensors: file.tensors, featureCount: featureLayers.width,
                                       classCount: metadata.classLabels.count, path: path)
        labels = metadata.classLabels
        self.backbone = backbone
        name = metadata.name
        training = metadata.training
        metrics = metadata.metrics
    }

    /// Reads a model file written by `coach train image-classifier`.
    public static func read(from url: URL) throws -> ImageClassifierModel {
        try ImageClassifierModel(file: ModelFile.read(from: url), path: url.path)
    }

    /// Throws `BackboneError.mismatch` unless `loaded` is the backbone this model was trained on
    /// (same name and SHA-256); `modelPath` names the model in the message.
    public func checkBackbone(_ loaded: Backbone, modelPath: String) throws {
        guard loaded.sha256 == backbone.sha256, loaded.name == backbone.name else {
            throw BackboneError.mismatch(model: modelPath, expectedName: backbone.name, expectedSHA256: backbone.sha256,
                                         foundName: loaded.name, foundSHA256: loaded.sha256, backbonePath: loaded.url.path)
        }
    }

    /// A reference to `backbone` for a model trained on it.
    public static func reference(to backbone: Backbone) -> BackboneReference {
        BackboneReference(name: backbone.name, sha256: backbone.sha256, fileName: backbone.url.lastPathComponent)
    }
}
