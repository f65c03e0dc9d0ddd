import CoachTensor
import Foundation

/// A feed-forward network stored as a list of operations over numbered values — how Coach
/// holds networks it imports rather than trains (MediaPipe's pose and hand models).
///
/// Values are numbered 0..<`valueCount`: each is a graph input, a constant (weights, in
/// Coach's layouts: convolution filters HWIO, depthwise [kh, kw, C], fully-connected
/// [in, out]) or the output of exactly one node. Nodes run in order; images are NHWC.
/// `shapes()` checks the whole graph (every value defined before use, every operation's
/// operands consistent) so running a validated graph cannot fail.
public struct GraphNetwork: Equatable, Sendable {
    /// The operations a graph can hold.
    public enum Operation: String, Codable, CaseIterable, Sendable {
        case conv2D = "conv2d", depthwiseConv2D = "depthwise-conv2d", add, pad, reshape
        case depthToSpace = "depth-to-space", resizeBilinear = "resize-bilinear", concatenate
        case maxPool2D = "max-pool2d", prelu, fullyConnected = "fully-connected", mean, logistic
    }

    /// One operation: its operands (value ids), the value it defines and its settings
    /// (only those its operation uses are set).
    public struct Node: Codable, Equatable, Sendable {
        public var operation: Operation
        public var inputs: [Int]
        public var output: Int
        /// `relu` or `relu6`, applied to the result (nil: none).
        public var activation: String?
        /// Convolution and pooling stride [h, w].
        public var stride: [Int]?
        /// `same` (TensorFlow's) or `valid`.
        public var padding: String?
        /// Pooling window [h, w].
        public var window: [Int]?
        /// `pad`: (before, after) for each axis, flattened.
        public var amounts: [Int]?
        /// `reshape`: the result's shape.
        public var shape: [Int]?
        /// `resize-bilinear`: the result's [h, w].
        public var size: [Int]?
        public var alignCorners: Bool?
        public var halfPixelCenters: Bool?
        /// `depth-to-space`: the block size.
        public var blockSize: Int?
        /// `concatenate`: the axis (non-negative).
        public var axis: Int?
        /// `mean`: the axes reduced.
        public var axes: [Int]?
        public var keepDimensions: Bool?

        /// A node of `operation` reading `inputs` and defining `output`; settings start unset.
        public init(_ operation: Operation, inputs: [Int], output: Int) {
            self.operation = operation
            self.inputs = inputs
            self.output = output
        }
    }

    /// A named graph input or output.
    public struct Port: Codable, Equatable, Sendable {
        public var name: String
        public var value: Int
        public var shape: [Int]
        public init(name: String, value: Int, shape: [Int]) {
            self.name = name
            self.value = value
            self.shape = shape
        }
    }

    public var inputs: [Port]
    public var outputs: [Port]
    public var nodes: [Node]
    /// Constant values by id.
    public var constants: [Int: Tensor]
    public var valueCount: Int

    /// A graph of these parts (check it with `shapes()`).
    public init(inputs: [Port], outputs: [Port], nodes: [Node], constants: [Int: Tensor], valueCount: Int) {
        self.inputs = inputs
        self.outputs = outputs
        self.nodes = nodes
        self.constants = constants
        self.valueCount = valueCount
    }

    /// How many nodes run each operation.
    public var operationCounts: [Operation: Int] {
        nodes.reduce(into: [:]) { $0[$1.operation, default: 0] += 1 }
    }

    /// The number of weights (constant scalars).
    public var parameterCount: Int { constants.values.reduce(0) { $0 + $1.count } }
}

/// Why a graph is not consistent: which node (or port) and what is wrong.
public struct GraphProblem: Error, Equatable, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// Every problem `GraphNetwork.shapes()` found.
public struct GraphProblems: Error, Equatable, Sendable {
    public var list: [GraphProblem]
}

extension GraphNetwork {
    /// Every value's shape (nil for ids no one defines), after checking the graph: each value
    /// defined once and before use, each operation's operands of the shapes it needs, outputs
    /// defined. Lists every problem found.
    public func shapes() -> Result<[[Int]?], GraphProblems> {
        guard valueCount >= 0, valueCount <= 1 << 24 else { return .failure(GraphProblems(list: [GraphProblem("value count \(valueCount)")])) }
        var shapes = [[Int]?](repeating: nil, count: valueCount)
        var problems: [GraphProblem] = []
        func define(_ id: Int, _ shape: [Int], _ what: String) {
            guard (0..<valueCount).contains(id) else { problems.append(GraphProblem("\(what) defines value \(id), outside 0..<\(valueCount)")); return }
            guard shapes[id] == nil else { problems.append(GraphProblem("\(what) redefines value \(id)")); return }
            guard shape.allSatisfy({ $0 > 0 && $0 <= 1 << 20 }), shape.count <= 6,
                  shape.reduce(1.0, { $0 * Double($1) }) <= Double(1 << 28) else {
                problems.append(GraphProblem("\(what) has shape \(shape)"))
                return
            }
            shapes[id] = shape
        }
        for port in inputs { define(port.value, port.shape, "input '\(port.name)'") }
        for (id, tensor) in constants.sorted(by: { $0.key < $1.key }) {
            if tensor.scalars.contains(where: { !$0.isFinite }) { problems.append(GraphProblem("constant \(id) contains NaN or infinity")) }
            define(id, tensor.shape, "constant \(id)")
        }
        for (index, node) in nodes.enumerated() {
            let operands = node.inputs.map { (0..<valueCount).contains($0) ? shapes[$0] : nil }
            guard operands.allSatisfy({ $0 != nil }) else {
                problems.append(GraphProblem("node \(index) (\(node.operation.rawValue)) reads values \(node.inputs), not all defined before it"))
                continue
            }
            switch GraphNetwork.outputShape(of: node, operands: operands.map { $0! }, constants: constants) {
            case .success(let shape): define(node.output, shape, "node \(index) (\(node.operation.rawValue))")
            case .failure(let problem):
                problems.append(GraphProblem("node \(index) (\(node.operation.rawValue)): \(problem.description)"))
            }
        }
        for port in outputs where !(0..<valueCount).contains(port.value) || shapes[port.value] == nil {
            problems.append(GraphProblem("output '\(port.name)' reads value \(port.value), which nothing defines"))
        }
        for port in outputs where (0..<valueCount).contains(port.value) {
            if let shape = shapes[port.value], shape != port.shape {
                problems.append(GraphProblem("output '\(port.name)' is declared \(port.shape) but computes \(shape)"))
            }
        }
        return problems.isEmpty ? .success(shapes) : .failure(GraphProblems(list: problems))
    }

    /// The shape `node` gives for operands of `operands` shapes, or why they do not fit.
    static func outputShape(of node: Node, operands: [[Int]], constants: [Int: Tensor]) -> Result<[Int], GraphProblem> {
        func fail(_ text: String) -> Result<[Int], GraphProblem> { .failure(GraphProblem(text)) }
        func count(_ n: Int) -> Bool { operands.count == n }
        if let activation = node.activation, activation != "relu", activation != "relu6" {
            return fail("unknown activation '\(activation)'")
        }
        switch node.operation {
        case .conv2D, .depthwiseConv2D, .maxPool2D:
            let x = operands[0]
            guard x.count == 4 else { return fail("expects an NHWC input, got \(x)") }
            guard let stride = node.stride, stride.count == 2, stride.allSatisfy({ $0 >= 1 && $0 <= 64 }) else { return fail("needs a stride [h, w]") }
            guard let paddingName = node.padding, let padding = GraphNetwork.padding(paddingName) else { return fail("needs padding same or valid") }
            let window: [Int], channels: Int
            switch node.operation {
            case .conv2D:
                guard count(2) || count(3) else { return fail("expects input, filter and an optional bias") }
                let f = operands[1]
                guard f.count == 4, f[2] == x[3] else { return fail("filter \(f) does not fit input \(x) (HWIO)") }
                window = [f[0], f[1]]
                channels = f[3]
            case .depthwiseConv2D:
                guard count(2) || count(3) else { return fail("expects input, filter and an optional bias") }
                let f = operands[1]
                guard f.count == 3, f[2] == x[3] else { return fail("filter \(f) does not fit input \(x) ([kh, kw, C])") }
                window = [f[0], f[1]]
                channels = f[2]
            default:
                guard count(1), let w = node.window, w.count == 2, w.allSatisfy({ $0 >= 1 }) else { return fail("needs one input and a window [h, w]") }
                window = w
                channels = x[3]
            }
            if operands.count == 3 && operands[2] != [channels] { return fail("bias \(operands[2]) should be [\(channels)]") }
            let vertical = padding.amounts(size: x[1], kernel: window[0], stride: stride[0], vertical: true)
            let horizontal = padding.amounts(size: x[2], kernel: window[1], stride: stride[1], vertical: false)
            let height = (x[1] + vertical.0 + vertical.1 - window[0]) / stride[0] + 1
            let width = (x[2] + horizontal.0 + horizontal.1 - window[1]) / stride[1] + 1
            guard height > 0, width > 0, x[1] + vertical.0 + vertical.1 >= window[0], x[2] + horizontal.0 + horizontal.1 >= window[1] else {
                return fail("window \(window) does not fit input \(x)")
            }
            return .success([x[0], height, width, channels])
        case .add:
            guard count(2), let shape = Tensor.broadcastShape(operands[0], operands[1]) else { return fail("cannot add \(operands)") }
            return .success(shape)
        case .pad:
            guard count(1), let amounts = node.amounts, amounts.count == 2 * operands[0].count, amounts.allSatisfy({ $0 >= 0 && $0 < 1 << 16 }) else {
                return fail("needs one input and a (before, after) pair per axis")
            }
            return .success(operands[0].enumerated().map { $1 + amounts[2 * $0] + amounts[2 * $0 + 1] })
        case .reshape:
            guard count(1), let shape = node.shape, shape.allSatisfy({ $0 > 0 }),
                  shape.reduce(1, *) == operands[0].reduce(1, *) else { return fail("cannot reshape \(operands) to \(node.shape ?? [])") }
            return .success(shape)
        case .depthToSpace:
            guard count(1), operands[0].count == 4, let b = node.blockSize, b >= 1, operands[0][3] % (b * b) == 0 else {
                return fail("needs an NHWC input whose channels divide by the block size squared")
            }
            let x = operands[0]
            return .success([x[0], x[1] * b, x[2] * b, x[3] / (b * b)])
        case .resizeBilinear:
            guard count(1), operands[0].count == 4, let size = node.size, size.count == 2, size.allSatisfy({ $0 >= 1 && $0 <= 1 << 14 }) else {
                return fail("needs an NHWC input and a size [h, w]")
            }
            return .success([operands[0][0], size[0], size[1], operands[0][3]])
        case .concatenate:
            guard let first = operands.first, let axis = node.axis, (0..<first.count).contains(axis) else { return fail("needs inputs and an axis") }
            var shape = first
            for other in operands.dropFirst() {
                guard other.count == first.count, other.indices.allSatisfy({ $0 == axis || other[$0] == first[$0] }) else {
                    return fail("cannot concatenate \(operands) along axis \(axis)")
                }
                shape[axis] += other[axis]
            }
            return .success(shape)
        case .prelu:
            guard count(2), Tensor.broadcastShape(operands[0], operands[1]) == operands[0] else { return fail("slopes \(operands[1]) do not broadcast to \(operands[0])") }
            return .success(operands[0])
        case .fullyConnected:
            guard count(2) || count(3) else { return fail("expects input, weight and an optional bias") }
            let x = operands[0], w = operands[1]
            guard w.count == 2, let last = x.last, x.reduce(1, *) % w[0] == 0 else { return fail("weight \(w) does not fit input \(x) ([in, out])") }
            if operands.count == 3 && operands[2] != [w[1]] { return fail("bias \(operands[2]) should be [\(w[1])]") }
            if node.keepDimensions == true {
                guard last == w[0] else { return fail("keeping dimensions needs the last axis \(last) to be \(w[0])") }
                return .success(Array(x.dropLast()) + [w[1]])
            }
            return .success([x.reduce(1, *) / w[0], w[1]])
        case .mean:
            guard count(1), let axes = node.axes, !axes.isEmpty, axes.allSatisfy({ (0..<operands[0].count).contains($0) }) else {
                return fail("needs one input and axes inside it")
            }
            let keep = node.keepDimensions ?? false
            return .success(operands[0].enumerated().compactMap { axes.contains($0) ? (keep ? 1 : nil) : $1 })
        case .logistic:
            guard count(1) else { return fail("expects one input") }
            return .success(operands[0])
        }
    }

    /// The padding named `name` (`same` or `valid`).
    static func padding(_ name: String) -> Padding? {
        switch name {
        case "same": return .same
        case "valid": return .valid
        default: return nil
        }
    }
}

extension GraphNetwork {
    /// The same network computing only the outputs at `indices` (in that order): nodes and
    /// constants that none of them depends on are dropped, so a pipeline that reads a model's
    /// landmarks does not pay for its segmentation mask. Value ids are unchanged.
    public func keepingOutputs(_ indices: [Int]) -> GraphNetwork {
        var pruned = self
        pruned.outputs = indices.map { outputs[$0] }
        var needed = Set(pruned.outputs.map(\.value))
        var kept: [Node] = []
        for node in nodes.reversed() where needed.contains(node.output) {
            kept.append(node)
            needed.formUnion(node.inputs)
        }
        pruned.nodes = kept.reversed()
        pruned.constants = constants.filter { needed.contains($0.key) }
        return pruned
    }
}
