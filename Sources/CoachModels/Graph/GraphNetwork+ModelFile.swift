import CoachTensor
import Foundation

extension GraphNetwork {
    /// The key of `ModelMetadata.extra` that holds the graph's structure.
    public static let metadataKey = "graph"
    /// The model-file name of constant `id`.
    public static func constantName(_ id: Int) -> String { "graph.constants.\(id)" }

    /// The structure stored in the metadata (the constants go in tensors).
    struct Structure: Codable {
        var inputs: [Port]
        var outputs: [Port]
        var nodes: [Node]
        var constants: [Int]
        var valueCount: Int
    }

    /// A model file holding this graph under `metadata` (whose `extra` gains the structure).
    public func modelFile(metadata: ModelMetadata) throws -> ModelFile {
        var metadata = metadata
        let structure = Structure(inputs: inputs, outputs: outputs, nodes: nodes, constants: constants.keys.sorted(),
                                  valueCount: valueCount)
        metadata.extra[GraphNetwork.metadataKey] = try JSONValue(encoding: structure)
        var tensors: [String: Tensor] = [:]
        for (id, tensor) in constants { tensors[GraphNetwork.constantName(id)] = tensor }
        return ModelFile(metadata: metadata, tensors: tensors)
    }

    /// The graph stored in `file`, checked end to end; a missing or inconsistent part is a
    /// `ModelFileError` naming the file and what is wrong (every problem listed).
    public init(file: ModelFile) throws {
        let path = file.sourcePath
        guard let structure = try file.metadata.extraValue(GraphNetwork.metadataKey, as: Structure.self) else {
            throw ModelFileError.malformedMetadata(path: path, jsonPath: "$.extra.\(GraphNetwork.metadataKey)",
                                                   reason: "missing: this model file holds no network graph")
        }
        var constants: [Int: Tensor] = [:]
        for id in structure.constants {
            let name = GraphNetwork.constantName(id)
            guard let tensor = file.tensors[name] else {
                throw ModelFileError.invalidTensor(path: path, name: name, reason: "missing: the graph lists constant \(id)")
            }
            constants[id] = tensor
        }
        self.init(inputs: structure.inputs, outputs: structure.outputs, nodes: structure.nodes, constants: constants,
                  valueCount: structure.valueCount)
        if case .failure(let problems) = shapes() {
            throw ModelFileError.malformedMetadata(path: path, jsonPath: "$.extra.\(GraphNetwork.metadataKey)",
                                                   reason: problems.list.map(\.description).joined(separator: "; "))
        }
    }
}
