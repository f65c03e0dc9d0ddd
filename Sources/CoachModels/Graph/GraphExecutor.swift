import CoachTensor
import Foundation

/// Runs a `GraphNetwork` fast: the plan is made once (shapes, buffers reused as values die,
/// 1×1 convolutions fused with the residual add that consumes them), then every run writes into
/// the same buffers with the pointer-level kernels — no allocation per operation. Results equal
/// `GraphNetwork.run` up to float rounding. Runs are serialised by a lock, so one executor may be
/// shared; use one per thread for parallel runs.
public final class GraphExecutor: @unchecked Sendable {
    public let graph: GraphNetwork
    let shapes: [[Int]]
    let steps: [Step]
    /// The buffer each value lives in (constants and inputs included), by value id.
    let slotOf: [Int]
    var slots: [UnsafeMutablePointer<Float>]
    let slotSizes: [Int]
    var workspace: UnsafeMutablePointer<Float>
    /// Filters re-laid out for `narrowConvolution`.
    let narrowFilters: [UnsafeMutablePointer<Float>]
    let lock = NSLock()

    enum Step {
        /// A 1×1 convolution writing `output`, optionally adding a residual value before the activation.
        case pointwise(node: Int, residual: Int?, activation: FusedActivation, output: Int)
        case convolution(node: Int, geometry: ConvolutionGeometry)
        /// A k×k convolution to very few channels (a segmentation head): direct, with the filter
        /// laid out [Cout, kh, kw, Cin] so each tap is one contiguous dot product.
        case narrowConvolution(node: Int, geometry: ConvolutionGeometry, filter: Int)
        case depthwise(node: Int, geometry: ConvolutionGeometry)
        case add(node: Int)
        case pad(node: Int)
        case prelu(node: Int)
        /// Anything else, through the tensor-level `GraphNetwork.evaluate`.
        case general(node: Int)
    }

    /// An executor of `graph`, which must pass `shapes()` (every loader checks it).
    public init(_ graph: GraphNetwork) {
        self.graph = graph
        guard case .success(let found) = graph.shapes() else { preconditionFailure("GraphExecutor needs a checked graph") }
        let shapes = found.map { $0 ?? [] }
        self.shapes = shapes
        let nodes = graph.nodes
        let lastUse = graph.lastUses
        var definedAt = [Int](repeating: -1, count: graph.valueCount)
        for (index, node) in nodes.enumerated() { definedAt[node.output] = index }
        var readers = [Int](repeating: 0, count: graph.valueCount)
        for node in nodes { for id in node.inputs { readers[id] += 1 } }
        for port in graph.outputs { readers[port.value] += 1 }

        // Steps, with 1×1 convolution + add fused when the convolution's only reader is the add.
        var steps: [Step] = []
        var fusedInto: [Int: (conv: Int, residual: Int)] = [:]   // add node → its fused conv
        var skipped = Set<Int>()
        var workspaceSize = 1
        var narrow: [UnsafeMutablePointer<Float>] = []
        for (index, node) in nodes.enumerated() {
            if skipped.contains(index) { continue }
            let activation = GraphNetwork.activation(node.activation)
            switch node.operation {
            case .conv2D:
                let filter = shapes[node.inputs[1]]
                let geometry = ConvolutionGeometry(inputShape: shapes[node.inputs[0]], kernelHeight: filter[0], kernelWidth: filter[1],
                                                   strideHeight: node.stride![0], strideWidth: node.stride![1],
                                                   padding: GraphNetwork.padding(node.padding!)!)
                if geometry.isPointwise {
                    // Fuse with a following add that is the convolution's only reader.
                    if activation == .none, readers[node.output] == 1,
                       let addIndex = nodes.indices.first(where: { $0 > index && nodes[$0].operation == .add && nodes[$0].inputs.contains(node.output) }),
                       let other = Optional(nodes[addIndex].inputs.first(where: { $0 != node.output }) ?? node.output),
                       nodes[addIndex].inputs.count == 2, nodes[addIndex].inputs[0] != nodes[addIndex].inputs[1],
                       shapes[other] == shapes[node.output], definedAt[other] < index,
                       (index + 1..<addIndex).allSatisfy({ nodes[$0].inputs.contains(node.output) == false }) {
                        steps.append(.pointwise(node: index, residual: other, activation: GraphNetwork.activation(nodes[addIndex].activation),
                                                output: nodes[addIndex].output))
                        fusedInto[addIndex] = (index, other)
                        skipped.insert(addIndex)
                    } else {
                        steps.append(.pointwise(node: index, residual: nil, activation: activation, output: node.output))
                    }
                } else if filter[3] <= 4 {
                    let values = graph.constants[node.inputs[1]]!.scalars
                    let laidOut = UnsafeMutablePointer<Float>.allocate(capacity: values.count)
                    let (kh, kw, cin, cout) = (filter[0], filter[1], filter[2], filter[3])
                    for o in 0..<cout { for y in 0..<kh { for x in 0..<kw { for i in 0..<cin {
                        laidOut[((o * kh + y) * kw + x) * cin + i] = values[((y * kw + x) * cin + i) * cout + o]
                    } } } }
                    narrow.append(laidOut)
                    steps.append(.narrowConvolution(node: index, geometry: geometry, filter: narrow.count - 1))
                } else {
                    workspaceSize = max(workspaceSize, Kernels.convolutionWorkspace(geometry: geometry))
                    steps.append(.convolution(node: index, geometry: geometry))
                }
            case .depthwiseConv2D:
                let filter = shapes[node.inputs[1]]
                steps.append(.depthwise(node: index, geometry: ConvolutionGeometry(
                    inputShape: shapes[node.inputs[0]], kernelHeight: filter[0], kernelWidth: filter[1], strideHeight: node.stride![0],
                    strideWidth: node.stride![1], padding: GraphNetwork.padding(node.padding!)!)))
            case .add where shapes[node.inputs[0]] == shapes[node.inputs[1]]:
                steps.append(.add(node: index))
            case .pad where shapes[node.inputs[0]].count == 4 && node.amounts![0] == 0 && node.amounts![1] == 0:
                steps.append(.pad(node: index))
            case .prelu where shapes[node.inputs[1]].reduce(1, *) == shapes[node.inputs[0]].last!
                && shapes[node.inputs[1]].last == shapes[node.inputs[0]].last:
                steps.append(.prelu(node: index))
            default:
                steps.append(.general(node: index))
            }
        }
        self.steps = steps
        self.narrowFilters = narrow

        // Buffers: constants and inputs keep their own; node outputs reuse buffers of dead values.
        // A fused convolution writes the add's output value directly.
        var outputOf: [Int: Int] = [:]   // node index → value it writes
        for (index, node) in nodes.enumerated() { outputOf[index] = node.output }
        for (add, fused) in fusedInto { outputOf[fused.conv] = nodes[add].output }
        var slotOf = [Int](repeating: -1, count: graph.valueCount)
        var sizes: [Int] = []
        var free: [Int] = []
        func allocate(_ size: Int) -> Int {
            if let best = free.enumerated().filter({ sizes[$0.element] >= size }).min(by: { sizes[$0.element] < sizes[$1.element] }) {
                free.remove(at: best.offset)
                return best.element
            }
            sizes.append(max(size, 1))
            return sizes.count - 1
        }
        let pinned = Set(graph.inputs.map(\.value) + graph.constants.keys + graph.outputs.map(\.value))
        for id in Set(graph.inputs.map(\.value)).union(graph.constants.keys) { slotOf[id] = allocate(shapes[id].reduce(1, *)) }
        for step in steps {
            let index: Int
            switch step {
            case .pointwise(let n, _, _, _), .convolution(let n, _), .narrowConvolution(let n, _, _), .depthwise(let n, _), .add(let n), .pad(let n), .prelu(let n), .general(let n): index = n
            }
            let value = outputOf[index]!
            slotOf[value] = allocate(shapes[value].reduce(1, *))
            // Release operands whose last reader has now run (a fused add counts as this step).
            var reads = nodes[index].inputs
            if case .pointwise(_, let residual?, _, _) = step { reads.append(residual) }
            let lastIndex = fusedInto.first(where: { $0.value.conv == index })?.key ?? index
            for id in Set(reads) where !pinned.contains(id) && slotOf[id] >= 0 && lastUse[id] <= lastIndex && lastUse[id] != Int.max {
                free.append(slotOf[id])
            }
        }
        self.slotOf = slotOf
        self.slotSizes = sizes
        slots = sizes.map { size in
            let pointer = UnsafeMutablePointer<Float>.allocate(capacity: size)
            pointer.initialize(repeating: 0, count: size)
            return pointer
        }
        workspace = UnsafeMutablePointer<Float>.allocate(capacity: workspaceSize)
        for (id, tensor) in graph.constants {
            tensor.withUnsafeBufferPointer { slots[slotOf[id]].update(from: $0.baseAddress!, count: $0.count) }
        }
    }

    deinit {
        for slot in slots { slot.deallocate() }
        for filter in narrowFilters { filter.deallocate() }
        workspace.deallocate()
    }

    func pointer(_ id: Int) -> UnsafeMutablePointer<Float> { slots[slotOf[id]] }

    /// The graph's outputs for `inputs` (one per input port, of its shape).
    public func run(_ inputs: [Tensor]) -> [Tensor] {
        lock.lock()
        defer { lock.unlock() }
        precondition(inputs.count == graph.inputs.count, "expected \(graph.inputs.count) inputs")
        for (port, tensor) in zip(graph.inputs, inputs) {
            precondition(tensor.shape == port.shape, "input '\(port.name)' must be \(port.shape), got \(tensor.shape)")
            tensor.withUnsafeBufferPointer { pointer(port.value).update(from: $0.baseAddress!, count: $0.count) }
        }
        let nodes = graph.nodes
        let zeros = [Float](repeating: 0, count: 4096)
        for step in steps {
            switch step {
            case .pointwise(let index, let residual, let activation, let output):
                let node = nodes[index]
                let x = shapes[node.inputs[0]], outChannels = shapes[node.inputs[1]][3]
                withBias(node, outChannels, zeros) { bias in
                    Kernels.pointwise(input: pointer(node.inputs[0]), rows: x[0] * x[1] * x[2], inputChannels: x[3],
                                      filter: pointer(node.inputs[1]), outputChannels: outChannels, bias: bias,
                                      activation: activation, residual: residual.map { UnsafePointer(pointer($0)) }, output: pointer(output))
                }
            case .convolution(let index, let geometry):
                let node = nodes[index]
                let outChannels = shapes[node.inputs[1]][3]
                withBias(node, outChannels, zeros) { bias in
                    Kernels.convolution(input: pointer(node.inputs[0]), geometry: geometry, filter: pointer(node.inputs[1]),
                                        outputChannels: outChannels, bias: bias, activation: GraphNetwork.activation(node.activation),
                                        workspace: workspace, output: pointer(node.output))
                }
            case .narrowConvolution(let index, let g, let filterIndex):
                let node = nodes[index]
                let cout = shapes[node.inputs[1]][3], cin = g.channels
                let filter = narrowFilters[filterIndex], input = pointer(node.inputs[0]), output = pointer(node.output)
                let activation = GraphNetwork.activation(node.activation)
                let upper: Float = activation == .relu6 ? 6 : .infinity, lower: Float = activation == .none ? -.infinity : 0
                withBias(node, cout, zeros) { bias in
                    parallelFor(g.batch * g.outputHeight) { row in
                        let n = row / g.outputHeight, oy = row % g.outputHeight
                        let y0 = oy * g.strideHeight - g.padTop
                        for ox in 0..<g.outputWidth {
                            let x0 = ox * g.strideWidth - g.padLeft
                            for o in 0..<cout {
                                var sum = bias[o]
                                for ky in max(0, -y0)..<min(g.kernelHeight, g.inputHeight - y0) {
                                    for kx in max(0, -x0)..<min(g.kernelWidth, g.inputWidth - x0) {
                                        let a = input + ((n * g.inputHeight + y0 + ky) * g.inputWidth + x0 + kx) * cin
                                        let w = filter + ((o * g.kernelHeight + ky) * g.kernelWidth + kx) * cin
                                        var dot: Float = 0
                                        for i in 0..<cin { dot += a[i] * w[i] }
                                        sum += dot
                                    }
                                }
                                output[((n * g.outputHeight + oy) * g.outputWidth + ox) * cout + o] = min(max(sum, lower), upper)
                            }
                        }
                    }
                }
            case .depthwise(let index, let geometry):
                let node = nodes[index]
                withBias(node, geometry.channels, zeros) { bias in
                    Kernels.depthwise(input: pointer(node.inputs[0]), geometry: geometry, filter: pointer(node.inputs[1]), bias: bias,
                                      activation: GraphNetwork.activation(node.activation), output: pointer(node.output))
                }
            case .add(let index):
                let node = nodes[index]
                let a = pointer(node.inputs[0]), b = pointer(node.inputs[1]), out = pointer(node.output)
                let count = shapes[node.output].reduce(1, *)
                let upper: Float = node.activation == "relu6" ? 6 : .infinity, lower: Float = node.activation == nil ? -.infinity : 0
                for i in 0..<count { out[i] = min(max(a[i] + b[i], lower), upper) }
            case .pad(let index):
                let node = nodes[index]
                let x = shapes[node.inputs[0]], y = shapes[node.output], p = node.amounts!
                let source = pointer(node.inputs[0]), out = pointer(node.output)
                out.update(repeating: 0, count: y.reduce(1, *))
                for n in 0..<x[0] {
                    for row in 0..<x[1] {
                        for column in 0..<x[2] {
                            let from = ((n * x[1] + row) * x[2] + column) * x[3]
                            let to = ((n * y[1] + row + p[2]) * y[2] + column + p[4]) * y[3] + p[6]
                            (out + to).update(from: source + from, count: x[3])
                        }
                    }
                }
            case .prelu(let index):
                let node = nodes[index]
                let channels = shapes[node.output].last!, count = shapes[node.output].reduce(1, *)
                let x = pointer(node.inputs[0]), slope = pointer(node.inputs[1]), out = pointer(node.output)
                // Branch-free (the sign of activations is unpredictable): max(v, 0) + slope · min(v, 0).
                // (Plain scalar code: the compiler vectorises it better than SIMD8 on baseline x86-64.)
                var base = 0
                while base < count {
                    for c in 0..<channels {
                        let v = x[base + c]
                        out[base + c] = max(v, 0) + slope[c] * min(v, 0)
                    }
                    base += channels
                }
            case .general(let index):
                let node = nodes[index]
                let operands = node.inputs.map { id in
                    Tensor(shape: shapes[id]) { $0.baseAddress!.update(from: pointer(id), count: $0.count) }
                }
                let result = GraphNetwork.evaluate(node, operands)
                result.withUnsafeBufferPointer { pointer(node.output).update(from: $0.baseAddress!, count: $0.count) }
            }
        }
        return graph.outputs.map { port in
            Tensor(shape: shapes[port.value]) { $0.baseAddress!.update(from: pointer(port.value), count: $0.count) }
        }
    }

    func withBias(_ node: GraphNetwork.Node, _ channels: Int, _ zeros: [Float], _ body: (UnsafePointer<Float>) -> Void) {
        if node.inputs.count > 2 {
            body(pointer(node.inputs[2]))
        } else if channels <= zeros.count {
            zeros.withUnsafeBufferPointer { body($0.baseAddress!) }
        } else {
            [Float](repeating: 0, count: channels).withUnsafeBufferPointer { body($0.baseAddress!) }
        }
    }
}
