import Foundation

// The few messages of ONNX's `onnx.proto` (proto2) an exported model needs, each with the
// field numbers of that schema. Repeated scalars marked `[packed = true]` there
// (`TensorProto.int64_data`) are written packed, the others (`dims`, `ints`, `floats`) one
// tag per value, as protobuf's own serialiser writes proto2.

/// A tensor element type (`TensorProto.DataType`).
public enum ONNXElementType: Int64, Sendable {
    /// 32-bit IEEE float.
    case float = 1
    /// 64-bit signed integer.
    case int64 = 7
}

/// A constant tensor (`TensorProto`): an initializer or an attribute value.
public struct ONNXTensor: Equatable, Sendable {
    /// The tensor's values: floats (stored as little-endian `raw_data`) or 64-bit integers.
    public enum Values: Equatable, Sendable {
        /// float32 values, row-major.
        case floats([Float])
        /// int64 values (shapes, axes).
        case integers([Int64])
    }

    /// The value name nodes refer to it by.
    public var name: String
    /// The shape (empty for a scalar).
    public var dimensions: [Int]
    /// The values, row-major; their count is the product of `dimensions`.
    public var values: Values

    /// A float tensor.
    public init(name: String, dimensions: [Int], floats: [Float]) {
        precondition(dimensions.reduce(1, *) == floats.count, "tensor \(name): \(floats.count) values for shape \(dimensions)")
        self.name = name
        self.dimensions = dimensions
        self.values = .floats(floats)
    }

    /// An int64 tensor.
    public init(name: String, dimensions: [Int], integers: [Int64]) {
        precondition(dimensions.reduce(1, *) == integers.count, "tensor \(name): \(integers.count) values for shape \(dimensions)")
        self.name = name
        self.dimensions = dimensions
        self.values = .integers(integers)
    }

    /// Writes the message's fields.
    public func encode(into writer: inout ProtobufWriter) {
        for dimension in dimensions { writer.writeInteger(1, Int64(dimension)) }
        switch values {
        case let .floats(floats):
            writer.writeInteger(2, ONNXElementType.float.rawValue)
            writer.writeString(8, name)
            writer.writeBytes(9, ProtobufWriter.littleEndianBytes(of: floats))
        case let .integers(integers):
            writer.writeInteger(2, ONNXElementType.int64.rawValue)
            writer.writePackedIntegers(7, integers)
            writer.writeString(8, name)
        }
    }
}

/// A node attribute (`AttributeProto`).
public struct ONNXAttribute: Equatable, Sendable {
    /// The attribute's value and so its `AttributeType`.
    public enum Value: Equatable, Sendable {
        /// FLOAT (1).
        case float(Float)
        /// INT (2).
        case integer(Int64)
        /// STRING (3).
        case string(String)
        /// TENSOR (4).
        case tensor(ONNXTensor)
        /// FLOATS (6).
        case floats([Float])
        /// INTS (7).
        case integers([Int64])
    }

    /// The attribute's name, e.g. `strides`.
    public var name: String
    /// Its value.
    public var value: Value

    /// An attribute `name` = `value`.
    public init(_ name: String, _ value: Value) {
        self.name = name
        self.value = value
    }

    /// Writes the message's fields.
    public func encode(into writer: inout ProtobufWriter) {
        writer.writeString(1, name)
        switch value {
        case let .float(number): writer.writeFloat(2, number)
        case let .integer(number): writer.writeInteger(3, number)
        case let .string(text): writer.writeString(4, text)
        case let .tensor(tensor): writer.writeMessage(5) { tensor.encode(into: &$0) }
        case let .floats(numbers): for number in numbers { writer.writeFloat(7, number) }
        case let .integers(numbers): for number in numbers { writer.writeInteger(8, number) }
        }
        writer.writeInteger(20, typeCode)
    }

    private var typeCode: Int64 {
        switch value {
        case .float: return 1
        case .integer: return 2
        case .string: return 3
        case .tensor: return 4
        case .floats: return 6
        case .integers: return 7
        }
    }
}

/// One operator application (`NodeProto`).
public struct ONNXNode: Equatable, Sendable {
    /// The operator, e.g. `Conv` (default domain).
    public var operatorType: String
    /// Input value names, in the operator's order.
    public var inputs: [String]
    /// Output value names.
    public var outputs: [String]
    /// The node's name (unique in the graph).
    public var name: String
    /// Attributes, written in this order.
    public var attributes: [ONNXAttribute]

    /// A node of `operatorType`.
    public init(_ operatorType: String, inputs: [String], outputs: [String], name: String, attributes: [ONNXAttribute] = []) {
        self.operatorType = operatorType
        self.inputs = inputs
        self.outputs = outputs
        self.name = name
        self.attributes = attributes
    }

    /// Writes the message's fields.
    public func encode(into writer: inout ProtobufWriter) {
        for input in inputs { writer.writeString(1, input) }
        for output in outputs { writer.writeString(2, output) }
        writer.writeString(3, name)
        writer.writeString(4, operatorType)
        for attribute in attributes { writer.writeMessage(5) { attribute.encode(into: &$0) } }
    }
}

/// A graph input or output with a fixed-shape tensor type (`ValueInfoProto`).
public struct ONNXValueInfo: Equatable, Sendable {
    /// The value's name.
    public var name: String
    /// The element type.
    public var elementType: ONNXElementType
    /// The fixed shape.
    public var dimensions: [Int]

    /// A tensor value `name` of `elementType` and shape `dimensions`.
    public init(name: String, elementType: ONNXElementType = .float, dimensions: [Int]) {
        self.name = name
        self.elementType = elementType
        self.dimensions = dimensions
    }

    /// Writes the message's fields: name, then `TypeProto.tensor_type` with its `TensorShapeProto`.
    public func encode(into writer: inout ProtobufWriter) {
        writer.writeString(1, name)
        writer.writeMessage(2) { type in
            type.writeMessage(1) { tensor in
                tensor.writeInteger(1, elementType.rawValue)
                tensor.writeMessage(2) { shape in
                    for dimension in dimensions { shape.writeMessage(1) { $0.writeInteger(1, Int64(dimension)) } }
                }
            }
        }
    }
}

/// A computation graph (`GraphProto`): nodes in topological order, constant initializers,
/// inputs and outputs.
public struct ONNXGraph: Equatable, Sendable {
    /// The graph's name.
    public var name: String
    /// Nodes in topological order.
    public var nodes: [ONNXNode] = []
    /// Constant tensors (weights).
    public var initializers: [ONNXTensor] = []
    /// The graph's inputs.
    public var inputs: [ONNXValueInfo] = []
    /// The graph's outputs.
    public var outputs: [ONNXValueInfo] = []

    /// An empty graph called `name`.
    public init(name: String) {
        self.name = name
    }

    /// Writes the message's fields.
    public func encode(into writer: inout ProtobufWriter) {
        for node in nodes { writer.writeMessage(1) { node.encode(into: &$0) } }
        writer.writeString(2, name)
        for tensor in initializers { writer.writeMessage(5) { tensor.encode(into: &$0) } }
        for input in inputs { writer.writeMessage(11) { input.encode(into: &$0) } }
        for output in outputs { writer.writeMessage(12) { output.encode(into: &$0) } }
    }
}

/// A whole model file (`ModelProto`): IR version, operator set, producer, graph and metadata.
public struct ONNXModel: Equatable, Sendable {
    /// The IR version (7: ONNX 1.7's, read by every runtime since 2020).
    public var irVersion: Int64 = 7
    /// The default-domain operator set version.
    public var operatorSetVersion: Int64 = 13
    /// Who wrote the file.
    public var producerName = "Coach"
    /// The writer's version.
    public var producerVersion: String
    /// A human-readable description of the model.
    public var documentation: String
    /// The graph.
    public var graph: ONNXGraph
    /// Key/value metadata, written sorted by key (so the bytes never depend on dictionary order).
    public var metadata: [String: String]

    /// A model around `graph`.
    public init(graph: ONNXGraph, producerVersion: String, documentation: String = "", metadata: [String: String] = [:]) {
        self.graph = graph
        self.producerVersion = producerVersion
        self.documentation = documentation
        self.metadata = metadata
    }

    /// The serialised file.
    public func serialized() -> Data {
        var writer = ProtobufWriter()
        writer.writeInteger(1, irVersion)
        writer.writeString(2, producerName)
        writer.writeString(3, producerVersion)
        if !documentation.isEmpty { writer.writeString(6, documentation) }
        writer.writeMessage(7) { graph.encode(into: &$0) }
        writer.writeMessage(8) { operatorSet in
            operatorSet.writeString(1, "")
            operatorSet.writeInteger(2, operatorSetVersion)
        }
        for key in metadata.keys.sorted() {
            writer.writeMessage(14) { entry in
                entry.writeString(1, key)
                entry.writeString(2, metadata[key]!)
            }
        }
        return writer.data
    }
}
