import Foundation

/// The parts of a TensorFlow Lite model (`schema.fbs`, TFLite schema version 3) that an import
/// needs: the first subgraph's tensors, operators and inputs/outputs, and the constant buffers.
/// Parsing checks every offset; a damaged file is a `TFLiteError` naming what was read.
public struct TFLiteModel: Sendable {
    /// TFLite's tensor element types that Coach reads.
    public enum ElementType: Int, Sendable {
        case float32 = 0, float16 = 1, int32 = 2, uint8 = 3, int64 = 4, int8 = 9
        /// Bytes per element.
        var size: Int {
            switch self {
            case .float32, .int32: return 4
            case .float16: return 2
            case .uint8, .int8: return 1
            case .int64: return 8
            }
        }
    }

    /// One dimension of a sparse tensor's storage (TFLite `DimensionMetadata`).
    public struct SparseDimension: Sendable {
        /// Dense (all `denseSize` positions stored) or compressed sparse row.
        public var isDense: Bool
        public var denseSize: Int
        /// CSR: where each parent position's run of indices starts and ends.
        public var segments: [Int]
        /// CSR: the coordinate of each stored element along this dimension.
        public var indices: [Int]
    }

    /// How a sparse constant is stored (TFLite `SparsityParameters`).
    public struct Sparsity: Sendable {
        public var traversalOrder: [Int]
        public var blockMap: [Int]
        public var dimensions: [SparseDimension]
    }

    /// One tensor of the graph.
    public struct TensorInfo: Sendable {
        public var name: String
        public var shape: [Int]
        /// TFLite's type code (see `ElementType`).
        public var typeCode: Int
        /// Index into `buffers` (0 = no data: a variable tensor).
        public var buffer: Int
        public var sparsity: Sparsity?
        public var hasQuantization: Bool
        public var elementType: ElementType? { ElementType(rawValue: typeCode) }
    }

    /// One operator of the graph.
    public struct OperatorInfo: Sendable {
        /// The builtin operator code (TFLite `BuiltinOperator`), or `customCode` for custom ones.
        public var builtinCode: Int
        public var customCode: String?
        /// Tensor indices; -1 marks an omitted optional input.
        public var inputs: [Int]
        public var outputs: [Int]
        /// The builtin options table (its type is implied by the operator).
        var options: FlatTable?
    }

    /// Where the file came from, for error messages.
    public let path: String
    let file: FlatBuffer
    public let tensors: [TensorInfo]
    public let operators: [OperatorInfo]
    public let inputs: [Int]
    public let outputs: [Int]
    /// Each buffer's bytes in the file (nil when it holds no data).
    let buffers: [Range<Int>?]

    /// Reads `url`; throws `TFLiteError` when it is missing, unreadable or damaged.
    public init(contentsOf url: URL) throws {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else { throw TFLiteError.fileNotFound(path: path) }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw TFLiteError.unreadable(path: path, reason: error.localizedDescription)
        }
        try self.init(bytes: [UInt8](data), path: path)
    }

    /// Parses a model from its bytes; `path` names it in errors.
    public init(bytes: [UInt8], path: String) throws {
        self.path = path
        guard bytes.count >= 8 else {
            throw TFLiteError.notTFLite(path: path, reason: "the file has only \(bytes.count) bytes")
        }
        guard bytes[4..<8].elementsEqual(Array("TFL3".utf8)) else {
            throw TFLiteError.notTFLite(path: path, reason: "bytes 4–7 are not the file identifier 'TFL3'")
        }
        let file = FlatBuffer(bytes: bytes, path: path)
        self.file = file
        let model = try file.root("the model")
        let version = try model.uint32(0)
        guard version == 3 else {
            throw TFLiteError.notTFLite(path: path, reason: "schema version \(version); Coach reads version 3")
        }
        let codes = try model.tables(1, "operator codes") { "operator code \($0)" }.map { code -> (Int, String?) in
            let deprecated = try code.int8(0)
            let builtin = try code.int32(3)
            return (max(deprecated, builtin), try code.string(1, "the custom code"))
        }
        let subgraphs = try model.tables(2, "subgraphs") { "subgraph \($0)" }
        guard let graph = subgraphs.first else { throw TFLiteError.malformed(path: path, what: "the model has no subgraph") }
        buffers = try model.tables(4, "buffers") { "buffer \($0)" }.map { buffer -> Range<Int>? in
            if let range = try buffer.byteRange(0, "the data"), !range.isEmpty { return range }
            let offset = try buffer.uint64(1), size = try buffer.uint64(2)
            guard offset > 1, size > 0 else { return nil }
            guard offset < UInt64(bytes.count), size <= UInt64(bytes.count) - offset else {
                throw TFLiteError.malformed(path: path, what: "\(buffer.what) lies outside the file")
            }
            return Int(offset)..<Int(offset + size)
        }
        let bufferCount = buffers.count
        tensors = try graph.tables(0, "tensors") { "tensor \($0)" }.map { tensor in
            let shape = try tensor.int32s(0, "the shape")
            let buffer = try tensor.uint32(2)
            guard buffer < max(bufferCount, 1), shape.allSatisfy({ $0 >= -1 }) else {
                throw TFLiteError.malformed(path: path, what: "\(tensor.what) has buffer \(buffer) or shape \(shape)")
            }
            var sparsity: Sparsity?
            if let table = try tensor.table(6, "the sparsity of \(tensor.what)") {
                let dimensions = try table.tables(2, "the dimension metadata") { "dimension \($0) of \(tensor.what)'s sparsity" }
                    .map { dimension -> SparseDimension in
                        func indexVector(_ typeField: Int, _ valueField: Int, _ name: String) throws -> [Int] {
                            let type = try dimension.uint8(typeField)
                            guard type != 0, let vector = try dimension.table(valueField, "\(name) of \(dimension.what)") else { return [] }
                            switch type {
                            case 1: return try vector.int32s(0, name)
                            case 2: return try vector.uint16s(0, name)
                            case 3: return try vector.byteRange(0, name).map { bytes[$0].map(Int.init) } ?? []
                            default: throw TFLiteError.malformed(path: path, what: "\(name) of \(dimension.what) has type \(type)")
                            }
                        }
                        return SparseDimension(isDense: try dimension.int8(0) == 0, denseSize: try dimension.int32(1),
                                               segments: try indexVector(2, 3, "the segments"),
                                               indices: try indexVector(4, 5, "the indices"))
                    }
                sparsity = Sparsity(traversalOrder: try table.int32s(0, "the traversal order"),
                                    blockMap: try table.int32s(1, "the block map"), dimensions: dimensions)
            }
            let quantization = try tensor.table(4, "the quantization of \(tensor.what)")
            let scaled = try quantization?.vector(2, elementSize: 4, "the scales")?.count ?? 0
            return TensorInfo(name: try tensor.string(3, "the name") ?? "", shape: shape, typeCode: try tensor.int8(1),
                              buffer: buffer, sparsity: sparsity, hasQuantization: scaled > 0)
        }
        let tensorCount = tensors.count
        /// Tensor indices in range; -1 (an omitted input) only where `optional` allows it.
        func indices(_ list: [Int], _ what: String, optional: Bool = false) throws -> [Int] {
            guard list.allSatisfy({ $0 >= (optional ? -1 : 0) && $0 < tensorCount }) else {
                throw TFLiteError.malformed(path: path, what: "\(what) names tensors \(list) of \(tensorCount)")
            }
            return list
        }
        operators = try graph.tables(3, "operators") { "operator \($0)" }.map { op in
            let codeIndex = try op.uint32(0)
            guard codeIndex < codes.count else {
                throw TFLiteError.malformed(path: path, what: "\(op.what) has operator code \(codeIndex) of \(codes.count)")
            }
            return OperatorInfo(builtinCode: codes[codeIndex].0, customCode: codes[codeIndex].1,
                                inputs: try indices(op.int32s(1, "the inputs"), "the inputs of \(op.what)", optional: true),
                                outputs: try indices(op.int32s(2, "the outputs"), "the outputs of \(op.what)"),
                                options: try op.table(4, "the options of \(op.what)"))
        }
        inputs = try indices(graph.int32s(1, "the inputs"), "the subgraph's inputs")
        outputs = try indices(graph.int32s(2, "the outputs"), "the subgraph's outputs")
    }

    /// The raw bytes of tensor `index`'s constant data (nil for a variable tensor).
    func data(of index: Int) -> ArraySlice<UInt8>? {
        let buffer = tensors[index].buffer
        guard buffer < buffers.count, let range = buffers[buffer] else { return nil }
        return file.bytes[range]
    }
}
