import CoachData
import CoachNN

/// What the pose classifiers (actions over windows, hand poses over one frame) have in common:
/// labels in output order, a network, and logits for a batch of `PoseWindow`s. Training and
/// evaluation code that only needs these works for both.
public protocol PoseClassifierModel: AnyObject {
    associatedtype Network: Module
    associatedtype Specification: Codable
    /// The task its model files carry.
    static var task: ModelTask { get }
    /// The key of `specification` under the model file's `extra` metadata.
    static var specificationKey: String { get }
    /// What it is, for messages ("an action classifier").
    static var kindDescription: String { get }
    /// The network and encoding, as model files store them.
    var specification: Specification { get }
    /// The pose input, as model files store it.
    var inputSpecification: InputSpecification { get }
    /// Class labels in output order.
    var labels: [String] { get }
    /// The network whose parameters training updates.
    var network: Network { get }
    /// Logits [N, classes] for `windows` on `tape` (training or inference mode).
    func logits(for windows: [PoseWindow], tape: Tape) -> Variable
    /// The model as a model file, with `training`, `metrics` and `extra` metadata added.
    func modelFile(name: String?, training: [String: JSONValue], metrics: [String: Double],
                   extra: [String: JSONValue]) throws -> ModelFile
}

extension PoseClassifierModel {
    /// The model as a model file: metadata (task, labels, pose input, the specification under
    /// `extra.<specificationKey>`, plus `training`, `metrics` and `extra` given here) and weights.
    public func modelFile(name: String? = nil, training: [String: JSONValue] = [:], metrics: [String: Double] = [:],
                          extra: [String: JSONValue] = [:]) throws -> ModelFile {
        try poseModelFile(name: name, training: training, metrics: metrics, extra: extra)
    }

    /// The network's model file (what `modelFile` writes unless a model adds tensors of its own).
    public func poseModelFile(name: String?, training: [String: JSONValue], metrics: [String: Double],
                              extra: [String: JSONValue]) throws -> ModelFile {
        var allExtra = extra
        allExtra[Self.specificationKey] = try JSONValue(encoding: specification)
        let metadata = ModelMetadata(task: Self.task, name: name, classLabels: labels, input: inputSpecification,
                                     training: training, metrics: metrics, extra: allExtra)
        return ModelFile(metadata: metadata, tensors: network.stateDictionary)
    }

    /// Loads `file`'s weights into the network, after checking every weight's name and shape.
    func loadWeights(from file: ModelFile) throws {
        try file.checkTensors(network.namedParameters.reduce(into: [:]) { $0[$1.name] = $1.parameter.value.shape })
        try network.load(file.tensors)
    }

    /// Class probabilities for each window (inference mode), in `labels` order, running
    /// `batchSize` windows at a time.
    public func batchedProbabilities(for windows: [PoseWindow], batchSize: Int) -> [[Float]] {
        var result: [[Float]] = []
        result.reserveCapacity(windows.count)
        let c = labels.count
        var start = 0
        while start < windows.count {
            let batch = Array(windows[start..<min(start + max(batchSize, 1), windows.count)])
            let tape = Tape(mode: .inference, recordsGradients: false)
            let probabilities = logits(for: batch, tape: tape).value.softmax(axis: -1)
            probabilities.withUnsafeBufferPointer { p in
                for n in 0..<batch.count { result.append(Array(p[(n * c)..<((n + 1) * c)])) }
            }
            start += batch.count
        }
        return result
    }
}

/// What a pose classifier's model file must hold whatever its kind, checked the same way for
/// both: the task, a pose input with valid joint names, class labels, and the specification
/// under `extra`. Problems are `ModelFileError.malformedMetadata` naming the JSON path.
struct PoseModelFileHeader<Model: PoseClassifierModel> {
    let pose: PoseInputSpecification
    let jointSet: JointSet
    let specification: Model.Specification
    let path: String?

    init(_ file: ModelFile) throws {
        let metadata = file.metadata
        path = file.sourcePath
        let path = self.path
        func problem(_ jsonPath: String, _ reason: String) -> ModelFileError {
            ModelFileError.malformedMetadata(path: path, jsonPath: jsonPath, reason: reason)
        }
        guard metadata.task == Model.task else {
            throw problem("$.task", "expected '\(Model.task)', found '\(metadata.task)': this is not \(Model.kindDescription)")
        }
        guard let pose = metadata.input?.pose else {
            throw problem("$.input.pose", "missing: \(Model.kindDescription) needs a pose input")
        }
        guard let jointSet = JointSet(names: pose.jointNames) else {
            throw problem("$.input.pose.jointNames", "expected distinct, non-empty joint names")
        }
        guard !metadata.classLabels.isEmpty else { throw problem("$.classLabels", "expected at least one class label") }
        let key = Model.specificationKey
        do {
            guard let decoded = try metadata.extraValue(key, as: Model.Specification.self) else {
                throw problem("$.extra.\(key)", "missing: the network and encoding are not described")
            }
            specification = decoded
        } catch ModelFileError.malformedMetadata(_, let jsonPath, let reason) {
            throw problem(jsonPath, reason)
        }
        self.pose = pose
        self.jointSet = jointSet
    }

    /// A problem at `jsonPath` of this file.
    func problem(_ jsonPath: String, _ reason: String) -> ModelFileError {
        ModelFileError.malformedMetadata(path: path, jsonPath: jsonPath, reason: reason)
    }

    /// A problem in the specification's `field` (e.g. `encoding`).
    func specificationProblem(_ field: String, _ reason: String) -> ModelFileError {
        problem("$.extra.\(Model.specificationKey).\(field)", reason)
    }
}
