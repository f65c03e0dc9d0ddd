import CoachTensor
import Foundation

/// Turns a TFLite model into a `GraphNetwork`: weight-only operators (fp16 DEQUANTIZE, DENSIFY
/// of sparse weights) are evaluated at import, weights move to Coach's layouts (convolution
/// filters OHWI → HWIO, depthwise [1, kh, kw, C] → [kh, kw, C], fully-connected [out, in] →
/// [in, out]) and every other operator becomes a graph node. Operators or settings Coach does
/// not implement are listed together in one error; the result is checked against the shapes the
/// TFLite file declares for every tensor.
public enum TFLiteImporter {
    /// TFLite builtin operator codes (`schema.fbs` `BuiltinOperator`) Coach reads.
    enum Builtin: Int {
        case add = 0, concatenation = 2, conv2D = 3, depthwiseConv2D = 4, depthToSpace = 5, dequantize = 6
        case fullyConnected = 9, logistic = 14, maxPool2D = 17, reshape = 22, resizeBilinear = 23, pad = 34
        case mean = 40, prelu = 54, densify = 124
    }

    /// Names of common builtin codes, for messages about operators Coach lacks.
    static let builtinNames: [Int: String] = [
        0: "ADD", 1: "AVERAGE_POOL_2D", 2: "CONCATENATION", 3: "CONV_2D", 4: "DEPTHWISE_CONV_2D", 5: "DEPTH_TO_SPACE",
        6: "DEQUANTIZE", 9: "FULLY_CONNECTED", 14: "LOGISTIC", 17: "MAX_POOL_2D", 18: "MUL", 19: "RELU", 21: "RELU6",
        22: "RESHAPE", 23: "RESIZE_BILINEAR", 25: "SOFTMAX", 28: "TANH", 32: "CUSTOM", 34: "PAD", 36: "GATHER",
        39: "TRANSPOSE", 40: "MEAN", 41: "SUB", 42: "DIV", 43: "SQUEEZE", 45: "STRIDED_SLICE", 49: "SPLIT", 53: "CAST",
        54: "PRELU", 55: "MAXIMUM", 57: "MINIMUM", 60: "PADV2", 65: "SLICE", 67: "TRANSPOSE_CONV", 74: "SUM",
        97: "RESIZE_NEAREST_NEIGHBOR", 98: "LEAKY_RELU", 114: "QUANTIZE", 117: "HARD_SWISH", 124: "DENSIFY",
    ]

    static func name(of op: TFLiteModel.OperatorInfo) -> String {
        if op.builtinCode == 32 { return "CUSTOM '\(op.customCode ?? "")'" }
        return builtinNames[op.builtinCode] ?? "builtin operator \(op.builtinCode)"
    }

    /// The number of elements of `shape`, nil unless every extent is positive and the total at most 2²⁸.
    static func elementCount(_ shape: [Int]) -> Int? {
        var count = 1
        for extent in shape {
            guard extent > 0 else { return nil }
            let (product, overflow) = count.multipliedReportingOverflow(by: extent)
            guard !overflow, product <= 1 << 28 else { return nil }
            count = product
        }
        return count
    }

    /// A constant operand as read from the file: its shape and scalars.
    struct Constant {
        var shape: [Int]
        var values: [Float]
    }

    /// The graph of `model`. Throws `TFLiteError` listing every unsupported operator or setting.
    public static func graph(of model: TFLiteModel) throws -> GraphNetwork {
        var builder = Builder(model: model)
        try builder.build()
        return builder.finished
    }

    struct Builder {
        let model: TFLiteModel
        var path: String { model.path }
        /// Folded constants by TFLite tensor index.
        var constants: [Int: Constant] = [:]
        /// Graph value ids of variable tensors by TFLite tensor index.
        var valueOf: [Int: Int] = [:]
        /// Graph constants already made from a TFLite tensor in a given layout.
        var converted: [String: Int] = [:]
        var graphConstants: [Int: Tensor] = [:]
        var nodes: [GraphNetwork.Node] = []
        var inputs: [GraphNetwork.Port] = []
        var outputs: [GraphNetwork.Port] = []
        var nextValue = 0
        var unsupportedOperators: [String: [Int]] = [:]
        var problems: [String] = []

        init(model: TFLiteModel) { self.model = model }

        var finished: GraphNetwork {
            GraphNetwork(inputs: inputs, outputs: outputs, nodes: nodes, constants: graphConstants, valueCount: nextValue)
        }

        mutating func newValue() -> Int {
            defer { nextValue += 1 }
            return nextValue
        }

        /// The tensor's stored data as floats (fp16 widened, sparse storage densified), nil when
        /// it has no data.
        func storedConstant(_ index: Int) throws -> Constant? {
            guard let bytes = model.data(of: index) else { return nil }
            let info = model.tensors[index]
            guard let type = info.elementType, type == .float32 || type == .float16 || type == .int32 else {
                throw TFLiteError.unsupported(path: path, problems: ["tensor \(index) '\(info.name)' has element type \(info.typeCode); Coach reads float32, float16 and int32 constants"])
            }
            guard !info.hasQuantization || type == .float16 || type == .float32 else {
                throw TFLiteError.unsupported(path: path, problems: ["tensor \(index) '\(info.name)' is quantized; Coach reads float models"])
            }
            guard bytes.count % type.size == 0 else {
                throw TFLiteError.malformed(path: path, what: "tensor \(index) '\(info.name)' has \(bytes.count) bytes of \(type.size)-byte elements")
            }
            let start = bytes.startIndex
            let values: [Float] = (0..<(bytes.count / type.size)).map { i in
                let p = start + i * type.size
                switch type {
                case .float16:
                    return Float(Float16(bitPattern: UInt16(bytes[p]) | UInt16(bytes[p + 1]) << 8))
                case .int32:
                    return Float(Int32(bitPattern: UInt32(bytes[p]) | UInt32(bytes[p + 1]) << 8 | UInt32(bytes[p + 2]) << 16 | UInt32(bytes[p + 3]) << 24))
                default:
                    return Float(bitPattern: UInt32(bytes[p]) | UInt32(bytes[p + 1]) << 8 | UInt32(bytes[p + 2]) << 16 | UInt32(bytes[p + 3]) << 24)
                }
            }
            guard let count = TFLiteImporter.elementCount(info.shape) else {
                throw TFLiteError.malformed(path: path, what: "tensor \(index) '\(info.name)' has shape \(info.shape)")
            }
            if let sparsity = info.sparsity {
                return Constant(shape: info.shape, values: try densify(values, shape: info.shape, sparsity: sparsity, tensor: index))
            }
            guard values.count == count else {
                throw TFLiteError.malformed(path: path, what: "tensor \(index) '\(info.name)' has \(values.count) values for shape \(info.shape)")
            }
            return Constant(shape: info.shape, values: values)
        }

        /// Dense values of a sparse tensor stored as TFLite's `SparsityParameters` describe
        /// (per stored dimension, in traversal order: dense, or compressed-sparse-row segments and indices).
        func densify(_ stored: [Float], shape: [Int], sparsity: TFLiteModel.Sparsity, tensor: Int) throws -> [Float] {
            let order = sparsity.traversalOrder, dims = sparsity.dimensions
            func bad(_ why: String) -> TFLiteError { .malformed(path: path, what: "the sparse storage of tensor \(tensor): \(why)") }
            guard sparsity.blockMap.isEmpty else {
                throw TFLiteError.unsupported(path: path, problems: ["tensor \(tensor) uses block-sparse storage, which Coach does not read"])
            }
            guard order.count == shape.count, dims.count == shape.count, Set(order) == Set(0..<shape.count) else {
                throw bad("traversal order \(order) does not match shape \(shape)")
            }
            let strides = Tensor.strides(of: shape)
            var dense = [Float](repeating: 0, count: shape.reduce(1, *))
            var coordinates = [Int](repeating: 0, count: shape.count)
            func walk(_ level: Int, _ position: Int) throws {
                if level == dims.count {
                    guard position >= 0 && position < stored.count else { throw bad("element \(position) of \(stored.count)") }
                    dense[zip(coordinates, strides).reduce(0) { $0 + $1.0 * $1.1 }] = stored[position]
                    return
                }
                let dim = dims[level], axis = order[level]
                if dim.isDense {
                    guard dim.denseSize == shape[axis] else { throw bad("dense size \(dim.denseSize) for axis of \(shape[axis])") }
                    for i in 0..<dim.denseSize {
                        coordinates[axis] = i
                        try walk(level + 1, position * dim.denseSize + i)
                    }
                } else {
                    guard position + 1 < dim.segments.count, dim.segments[position] <= dim.segments[position + 1],
                          dim.segments[position + 1] <= dim.indices.count else { throw bad("segment \(position)") }
                    for j in dim.segments[position]..<dim.segments[position + 1] {
                        guard (0..<shape[axis]).contains(dim.indices[j]) else { throw bad("index \(dim.indices[j]) outside 0..<\(shape[axis])") }
                        coordinates[axis] = dim.indices[j]
                        try walk(level + 1, j)
                    }
                }
            }
            try walk(0, 0)
            return dense
        }

        /// The constant operand at TFLite tensor `index` (folded or stored).
        func constant(_ index: Int) throws -> Constant? {
            if let folded = constants[index] { return folded }
            return try storedConstant(index)
        }

        /// The graph value for TFLite tensor `index`, making a graph constant (in `layout`) when it is constant.
        mutating func operand(_ index: Int, layout: String = "as-is", _ transform: (Constant) -> Tensor = { Tensor(shape: $0.shape, scalars: $0.values) }) throws -> Int? {
            if let value = valueOf[index] { return value }
            guard let constant = try constant(index) else { return nil }
            let key = "\(index)/\(layout)"
            if let value = converted[key] { return value }
            let value = newValue()
            graphConstants[value] = transform(constant)
            converted[key] = value
            return value
        }

        mutating func build() throws {
            for index in model.inputs {
                guard TFLiteImporter.elementCount(model.tensors[index].shape) != nil else {
                    throw TFLiteError.unsupported(path: path, problems: ["input '\(model.tensors[index].name)' has shape \(model.tensors[index].shape); Coach needs fixed, positive sizes"])
                }
                let id = newValue()
                valueOf[index] = id
                inputs.append(.init(name: model.tensors[index].name, value: id, shape: model.tensors[index].shape))
            }
            for (number, op) in model.operators.enumerated() {
                guard let builtin = Builtin(rawValue: op.builtinCode) else {
                    unsupportedOperators[TFLiteImporter.name(of: op), default: []].append(number)
                    continue
                }
                try add(op, builtin, number: number)
            }
            if !unsupportedOperators.isEmpty {
                throw TFLiteError.unsupportedOperators(path: path, operators: unsupportedOperators.sorted { $0.key < $1.key }.map {
                    "\($0.key) (operator\($0.value.count == 1 ? "" : "s") \($0.value.prefix(5).map(String.init).joined(separator: ", "))\($0.value.count > 5 ? ", …" : ""))"
                })
            }
            for index in model.outputs {
                guard let id = valueOf[index] else {
                    problems.append("output '\(model.tensors[index].name)' is not computed by any operator Coach runs")
                    continue
                }
                outputs.append(.init(name: model.tensors[index].name, value: id, shape: model.tensors[index].shape))
            }
            guard problems.isEmpty else { throw TFLiteError.unsupported(path: path, problems: problems) }
            // Every value's shape must be the one the file declares.
            switch finished.shapes() {
            case .failure(let found):
                throw TFLiteError.unsupported(path: path, problems: found.list.map(\.description))
            case .success(let shapes):
                for (tensor, id) in valueOf.sorted(by: { $0.key < $1.key }) where shapes[id] != model.tensors[tensor].shape {
                    problems.append("tensor \(tensor) '\(model.tensors[tensor].name)' computes \(shapes[id] ?? []) but the file declares \(model.tensors[tensor].shape)")
                }
                guard problems.isEmpty else { throw TFLiteError.unsupported(path: path, problems: problems) }
            }
        }

        func activation(_ code: Int) -> String?? {
            switch code {
            case 0: return .some(nil)
            case 1: return "relu"
            case 3: return "relu6"
            default: return nil
            }
        }

        /// Adds the node (or folds the constant) for operator `number`.
        mutating func add(_ op: TFLiteModel.OperatorInfo, _ builtin: Builtin, number: Int) throws {
            let what = "operator \(number) (\(TFLiteImporter.name(of: op)))"
            func problem(_ text: String) { problems.append("\(what): \(text)") }
            guard let outputTensor = op.outputs.first, op.outputs.count == 1, outputTensor >= 0 else {
                problem("expected exactly one output")
                return
            }
            let options = op.options
            func option(_ id: Int, _ read: (FlatTable) throws -> Int) throws -> Int { try options.map(read) ?? 0 }
            let present = op.inputs.filter { $0 >= 0 }
            // Weight-only operators run now.
            if builtin == .dequantize || builtin == .densify {
                guard present.count == 1, let value = try constant(present[0]) else {
                    problem("only constant (weight) inputs are supported")
                    return
                }
                let shape = model.tensors[outputTensor].shape
                guard TFLiteImporter.elementCount(shape) == value.values.count else {
                    problem("turns \(value.values.count) values into shape \(shape)")
                    return
                }
                constants[outputTensor] = Constant(shape: shape, values: value.values)
                return
            }
            var inputs: [Int] = []
            var node: GraphNetwork.Node
            func variable(_ position: Int) throws -> Int? {
                guard position < op.inputs.count, op.inputs[position] >= 0 else { return nil }
                return try operand(op.inputs[position])
            }
            func fusedActivation(_ field: Int) throws -> String? {
                let code = try option(field) { try $0.int8(field) }
                guard let mapped = activation(code) else {
                    problem("fused activation \(code) (Coach fuses none, RELU and RELU6)")
                    return nil
                }
                return mapped
            }
            func paddingName(_ field: Int) throws -> String {
                try option(field) { try $0.int8(field) } == 1 ? "valid" : "same"
            }
            switch builtin {
            case .conv2D, .depthwiseConv2D:
                guard op.inputs.count >= 2, let x = try variable(0) else { problem("needs an input and a filter"); return }
                let filterIndex = op.inputs[1]
                guard filterIndex >= 0, let filter = try constant(filterIndex), filter.shape.count == 4 else {
                    problem("the filter must be a constant [O, kh, kw, I] tensor")
                    return
                }
                let isDepthwise = builtin == .depthwiseConv2D
                let dilation = isDepthwise ? [try option(6) { try $0.int32(6, default: 1) }, try option(5) { try $0.int32(5, default: 1) }]
                    : [try option(5) { try $0.int32(5, default: 1) }, try option(4) { try $0.int32(4, default: 1) }]
                if options != nil && dilation != [1, 1] { problem("dilation \(dilation) (Coach runs undilated convolutions)") }
                let filterValue: Int?
                if isDepthwise {
                    let channels = model.tensors[op.inputs[0]].shape.last ?? 0
                    guard filter.shape[0] == 1, filter.shape[3] == channels else {
                        problem("depth multiplier other than 1 (filter \(filter.shape), \(channels) input channels)")
                        return
                    }
                    filterValue = try operand(filterIndex, layout: "depthwise") { Tensor(shape: Array($0.shape[1...]), scalars: $0.values) }
                } else {
                    filterValue = try operand(filterIndex, layout: "hwio") { Tensor(shape: $0.shape, scalars: $0.values).permuted([1, 2, 3, 0]) }
                }
                inputs = [x, filterValue!]
                if op.inputs.count > 2, op.inputs[2] >= 0 {
                    guard let bias = try operand(op.inputs[2]) else { problem("the bias must be constant"); return }
                    inputs.append(bias)
                }
                node = GraphNetwork.Node(isDepthwise ? .depthwiseConv2D : .conv2D, inputs: inputs, output: 0)
                node.padding = try paddingName(0)
                node.stride = [try option(2) { try $0.int32(2) }, try option(1) { try $0.int32(1) }]
                node.activation = try fusedActivation(isDepthwise ? 4 : 3)
            case .maxPool2D:
                guard let x = try variable(0) else { problem("needs an input"); return }
                node = GraphNetwork.Node(.maxPool2D, inputs: [x], output: 0)
                node.padding = try paddingName(0)
                node.stride = [try option(2) { try $0.int32(2) }, try option(1) { try $0.int32(1) }]
                node.window = [try option(4) { try $0.int32(4) }, try option(3) { try $0.int32(3) }]
                node.activation = try fusedActivation(5)
            case .add:
                guard present.count == 2, let a = try variable(0), let b = try variable(1) else { problem("needs two inputs"); return }
                node = GraphNetwork.Node(.add, inputs: [a, b], output: 0)
                node.activation = try fusedActivation(0)
            case .pad:
                guard op.inputs.count >= 2, let x = try variable(0), let amounts = try constant(op.inputs[1]),
                      amounts.shape.count == 2, amounts.shape[1] == 2 else {
                    problem("needs an input and constant [rank, 2] paddings")
                    return
                }
                node = GraphNetwork.Node(.pad, inputs: [x], output: 0)
                node.amounts = amounts.values.map { Int($0) }
            case .reshape:
                guard let x = try variable(0) else { problem("needs an input"); return }
                node = GraphNetwork.Node(.reshape, inputs: [x], output: 0)
                node.shape = model.tensors[outputTensor].shape
            case .depthToSpace:
                guard let x = try variable(0) else { problem("needs an input"); return }
                node = GraphNetwork.Node(.depthToSpace, inputs: [x], output: 0)
                node.blockSize = try option(0) { try $0.int32(0) }
            case .resizeBilinear:
                guard op.inputs.count >= 2, let x = try variable(0), let size = try constant(op.inputs[1]), size.values.count == 2 else {
                    problem("needs an input and a constant size")
                    return
                }
                node = GraphNetwork.Node(.resizeBilinear, inputs: [x], output: 0)
                node.size = size.values.map { Int($0) }
                node.alignCorners = try options?.bool(2) ?? false
                node.halfPixelCenters = try options?.bool(3) ?? false
            case .concatenation:
                inputs = []
                for position in op.inputs.indices {
                    guard let value = try variable(position) else { problem("input \(position) is missing"); return }
                    inputs.append(value)
                }
                node = GraphNetwork.Node(.concatenate, inputs: inputs, output: 0)
                let rank = model.tensors[outputTensor].shape.count
                let axis = try option(0) { try $0.int32(0) }
                node.axis = axis < 0 ? axis + rank : axis
                node.activation = try fusedActivation(1)
            case .prelu:
                guard op.inputs.count == 2, let x = try variable(0), let slope = try variable(1) else { problem("needs an input and slopes"); return }
                node = GraphNetwork.Node(.prelu, inputs: [x, slope], output: 0)
            case .fullyConnected:
                guard op.inputs.count >= 2, let x = try variable(0), let weight = try constant(op.inputs[1]), weight.shape.count == 2 else {
                    problem("needs an input and a constant [out, in] weight")
                    return
                }
                let format = try option(1) { try $0.int8(1) }
                if format != 0 { problem("a shuffled weights format") }
                _ = weight
                inputs = [x, try operand(op.inputs[1], layout: "in-out") { Tensor(shape: $0.shape, scalars: $0.values).transposed() }!]
                if op.inputs.count > 2, op.inputs[2] >= 0 {
                    guard let bias = try operand(op.inputs[2]) else { problem("the bias must be constant"); return }
                    inputs.append(bias)
                }
                node = GraphNetwork.Node(.fullyConnected, inputs: inputs, output: 0)
                node.activation = try fusedActivation(0)
                node.keepDimensions = try options?.bool(2) ?? false
            case .mean:
                guard op.inputs.count == 2, let x = try variable(0), let axes = try constant(op.inputs[1]) else {
                    problem("needs an input and constant axes")
                    return
                }
                let rank = model.tensors[op.inputs[0]].shape.count
                node = GraphNetwork.Node(.mean, inputs: [x], output: 0)
                node.axes = axes.values.map { Int($0) < 0 ? Int($0) + rank : Int($0) }.sorted()
                node.keepDimensions = try options?.bool(0) ?? false
            case .logistic:
                guard let x = try variable(0) else { problem("needs an input"); return }
                node = GraphNetwork.Node(.logistic, inputs: [x], output: 0)
            case .dequantize, .densify:
                return
            }
            node.output = newValue()
            valueOf[outputTensor] = node.output
            nodes.append(node)
        }
    }
}
