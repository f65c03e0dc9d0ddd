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
    /// Constant filters of 1×1 and k×k convolution steps packed for the packed GEMM, by node index.
    let packedFilters: [Int: PackedWeights]
    let lock = NSLock()

    enum Step {
        /// A 1×1 convolution writing `output`, optionally adding a residual value before the
        /// activation and applying PReLU `slopes` last.
        case pointwise(node: Int, residual: Int?, activation: FusedActivation, slopes: Int?, output: Int)
        /// A k×k convolution of `input` (the node's, or the input of a zero PAD folded into `geometry`).
        case convolution(node: Int, input: Int, geometry: ConvolutionGeometry, slopes: Int?, output: Int)
        /// A k×k convolution to very few channels (a segmentation head): direct, with the filter
        /// laid out [Cout, kh, kw, Cin] so each tap is one contiguous dot product.
        case narrowConvolution(node: Int, input: Int, geometry: ConvolutionGeometry, filter: Int)
        case depthwise(node: Int, input: Int, geometry: ConvolutionGeometry)
        case add(node: Int)
        case pad(node: Int)
        case prelu(node: Int)
        case maxPool(node: Int, geometry: ConvolutionGeometry)
        case resize(node: Int)
        /// A fully connected layer with a constant weight [in, out], through the packed GEMM.
        case dense(node: Int)
        /// The mean over the spatial axes of an NHWC value (global average pooling).
        case spatialMean(node: Int)
        /// Anything else, through the tensor-level `GraphNetwork.evaluate`.
        case general(node: Int)

        var node: Int {
            switch self {
            case .pointwise(let n, _, _, _, _), .convolution(let n, _, _, _, _), .narrowConvolution(let n, _, _, _),
                 .depthwise(let n, _, _), .add(let n), .pad(let n), .prelu(let n), .maxPool(let n, _), .resize(let n),
                 .dense(let n), .spatialMean(let n), .general(let n):
                return n
            }
        }
    }

    /// An executor of `graph`, which must pass `shapes()` (every loader checks it).
    public init(_ graph: GraphNetwork) {
        self.graph = graph
        guard case .success(let found) = graph.shapes() else { preconditionFailure("GraphExecutor needs a checked graph") }
        let shapes = found.map { $0 ?? [] }
        self.shapes = shapes
        let nodes = graph.nodes
        var definedAt = [Int](repeating: -1, count: graph.valueCount)
        for (index, node) in nodes.enumerated() { definedAt[node.output] = index }
        var readerNodes = [[Int]](repeating: [], count: graph.valueCount)
        for (index, node) in nodes.enumerated() { for id in Set(node.inputs) { readerNodes[id].append(index) } }
        let isGraphOutput = Set(graph.outputs.map(\.value))
        /// The node that is `value`'s only reader, when the value is not also a graph output.
        func onlyReader(_ value: Int) -> Int? {
            readerNodes[value].count == 1 && !isGraphOutput.contains(value) && nodes[readerNodes[value][0]].inputs.count(where: { $0 == value }) == 1
                ? readerNodes[value][0] : nil
        }
        /// The per-channel slopes of a PReLU node reading `value` alone, to fold into its producer.
        func foldablePReLU(after value: Int) -> (node: Int, slopes: Int)? {
            guard let reader = onlyReader(value), nodes[reader].operation == .prelu, nodes[reader].inputs[0] == value,
                  graph.constants[nodes[reader].inputs[1]] != nil,
                  shapes[nodes[reader].inputs[1]].reduce(1, *) == shapes[value].last,
                  shapes[nodes[reader].inputs[1]].last == shapes[value].last else { return nil }
            return (reader, nodes[reader].inputs[1])
        }
        /// A zero PAD of the spatial axes only whose every reader is a VALID convolution of it:
        /// the readers take the padding into their geometry and the PAD is never materialised.
        func foldablePad(_ index: Int) -> Bool {
            let node = nodes[index], amounts = node.amounts ?? []
            guard node.operation == .pad, shapes[node.inputs[0]].count == 4, amounts.count == 8,
                  amounts[0] == 0, amounts[1] == 0, amounts[6] == 0, amounts[7] == 0,
                  !isGraphOutput.contains(node.output), !readerNodes[node.output].isEmpty else { return false }
            return readerNodes[node.output].allSatisfy { reader in
                let r = nodes[reader]
                return (r.operation == .conv2D || r.operation == .depthwiseConv2D) && r.padding == "valid"
                    && r.inputs[0] == node.output && r.inputs.dropFirst().contains(node.output) == false
            }
        }
        /// The input and geometry of convolution `node`, looking through a folded PAD.
        func convolutionInput(_ node: GraphNetwork.Node) -> (input: Int, geometry: ConvolutionGeometry) {
            let filter = shapes[node.inputs[1]]
            var input = node.inputs[0], padding = GraphNetwork.padding(node.padding!)!
            if definedAt[input] >= 0, foldablePad(definedAt[input]) {
                let a = nodes[definedAt[input]].amounts!
                padding = .explicit(top: a[2], bottom: a[3], left: a[4], right: a[5])
                input = nodes[definedAt[input]].inputs[0]
            }
            return (input, ConvolutionGeometry(inputShape: shapes[input], kernelHeight: filter[0], kernelWidth: filter[1],
                                               strideHeight: node.stride![0], strideWidth: node.stride![1], padding: padding))
        }

        // Steps. A 1×1 convolution absorbs the residual add that is its only reader, and either
        // kind of convolution absorbs a PReLU that is its result's only reader.
        var steps: [Step] = []
        var skipped = Set<Int>()
        var workspaceSize = 1
        var narrow: [UnsafeMutablePointer<Float>] = []
        for (index, node) in nodes.enumerated() {
            if skipped.contains(index) { continue }
            let activation = GraphNetwork.activation(node.activation)
            switch node.operation {
            case .pad where foldablePad(index):
                continue
            case .conv2D:
                let (input, geometry) = convolutionInput(node)
                let filter = shapes[node.inputs[1]]
                if geometry.isPointwise {
                    var output = node.output, residual: Int?, fusedActivation = activation
                    if activation == .none, let addIndex = onlyReader(node.output), nodes[addIndex].operation == .add,
                       nodes[addIndex].inputs.count == 2,
                       let other = nodes[addIndex].inputs.first(where: { $0 != node.output }),
                       shapes[other] == shapes[node.output], definedAt[other] < index {
                        residual = other
                        output = nodes[addIndex].output
                        fusedActivation = GraphNetwork.activation(nodes[addIndex].activation)
                        skipped.insert(addIndex)
                    }
                    var slopes: Int?
                    if fusedActivation == .none, let prelu = foldablePReLU(after: output) {
                        slopes = prelu.slopes
                        output = nodes[prelu.node].output
                        skipped.insert(prelu.node)
                    }
                    steps.append(.pointwise(node: index, residual: residual, activation: fusedActivation, slopes: slopes, output: output))
                } else if filter[3] <= 4 {
                    let laidOut = UnsafeMutablePointer<Float>.allocate(capacity: filter.reduce(1, *))
                    graph.constants[node.inputs[1]]!.withUnsafeBufferPointer {
                        Kernels.layOutNarrowFilter($0.baseAddress!, kernelHeight: filter[0], kernelWidth: filter[1],
                                                   inputChannels: filter[2], outputChannels: filter[3], into: laidOut)
                    }
                    narrow.append(laidOut)
                    steps.append(.narrowConvolution(node: index, input: input, geometry: geometry, filter: narrow.count - 1))
                } else {
                    workspaceSize = max(workspaceSize, Kernels.convolutionWorkspace(geometry: geometry))
                    var slopes: Int?, output = node.output
                    if activation == .none, let prelu = foldablePReLU(after: output) {
                        slopes = prelu.slopes
                        output = nodes[prelu.node].output
                        skipped.insert(prelu.node)
                    }
                    steps.append(.convolution(node: index, input: input, geometry: geometry, slopes: slopes, output: output))
                }
            case .depthwiseConv2D:
                let (input, geometry) = convolutionInput(node)
                steps.append(.depthwise(node: index, input: input, geometry: geometry))
            case .add where shapes[node.inputs[0]] == shapes[node.inputs[1]]:
                steps.append(.add(node: index))
            case .pad where shapes[node.inputs[0]].count == 4 && node.amounts![0] == 0 && node.amounts![1] == 0:
                steps.append(.pad(node: index))
            case .prelu where shapes[node.inputs[1]].reduce(1, *) == shapes[node.inputs[0]].last!
                && shapes[node.inputs[1]].last == shapes[node.inputs[0]].last:
                steps.append(.prelu(node: index))
            case .maxPool2D where node.activation == nil:
                steps.append(.maxPool(node: index, geometry: ConvolutionGeometry(
                    inputShape: shapes[node.inputs[0]], kernelHeight: node.window![0], kernelWidth: node.window![1],
                    strideHeight: node.stride![0], strideWidth: node.stride![1], padding: GraphNetwork.padding(node.padding!)!)))
            case .resizeBilinear where shapes[node.inputs[0]].count == 4:
                steps.append(.resize(node: index))
            case .fullyConnected where graph.constants[node.inputs[1]] != nil && shapes[node.inputs[1]].count == 2:
                steps.append(.dense(node: index))
            case .mean where shapes[node.inputs[0]].count == 4 && Set(node.axes ?? []) == [1, 2] && node.axes!.count == 2:
                steps.append(.spatialMean(node: index))
            default:
                steps.append(.general(node: index))
            }
        }
        self.steps = steps
        self.narrowFilters = narrow
        var packed: [Int: PackedWeights] = [:]
        for step in steps {
            switch step {
            case .pointwise(let index, _, _, _, _), .convolution(let index, _, _, _, _), .dense(let index):
                let filterShape = shapes[nodes[index].inputs[1]]
                if let filter = graph.constants[nodes[index].inputs[1]] {
                    packed[index] = PackedWeights.packing(filter.scalars, rows: filterShape.dropLast().reduce(1, *),
                                                          columns: filterShape.last!)
                }
            default: break
            }
        }
        self.packedFilters = packed

        // What each step reads and writes, then buffers: constants and inputs keep their own;
        // step outputs reuse the buffers of values no later step reads.
        let stepReads: [[Int]] = steps.map { step in
            switch step {
            case .pointwise(let n, let residual, _, let slopes, _):
                return nodes[n].inputs + [residual, slopes].compactMap { $0 }
            case .convolution(let n, let input, _, let slopes, _):
                return [input] + nodes[n].inputs.dropFirst() + [slopes].compactMap { $0 }
            case .narrowConvolution(let n, let input, _, _), .depthwise(let n, let input, _):
                return [input] + nodes[n].inputs.dropFirst()
            default:
                return nodes[step.node].inputs
            }
        }
        let stepOutputs: [Int] = steps.map { step in
            switch step {
            case .pointwise(_, _, _, _, let output), .convolution(_, _, _, _, let output): return output
            default: return nodes[step.node].output
            }
        }
        var lastStep = [Int](repeating: -1, count: graph.valueCount)
        for (index, reads) in stepReads.enumerated() { for id in reads { lastStep[id] = index } }
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
        let pinned = Set(graph.inputs.map(\.value) + graph.constants.keys).union(isGraphOutput)
        for id in Set(graph.inputs.map(\.value)).union(graph.constants.keys) { slotOf[id] = allocate(shapes[id].reduce(1, *)) }
        for index in steps.indices {
            let value = stepOutputs[index]
            slotOf[value] = allocate(shapes[value].reduce(1, *))
            for id in Set(stepReads[index]) where !pinned.contains(id) && slotOf[id] >= 0 && lastStep[id] == index {
                free.append(slotOf[id])
            }
        }
        self.slotOf = slotOf
        self.slotSizes = sizes
        slots = sizes.map { size in
            let pointer = Kernels.allocateAligned(size)
            pointer.initialize(repeating: 0, count: size)
            return pointer
        }
        workspace = Kernels.allocateAligned(workspaceSize)
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

    /// The graph's outputs for `inputs` (one per input port, of its shape). `timing`, when given,
    /// receives each step's kind (see `stepKinds`) and seconds: the benchmarks' profile.
    public func run(_ inputs: [Tensor], timing: ((String, Double) -> Void)? = nil) -> [Tensor] {
        lock.lock()
        defer { lock.unlock() }
        precondition(inputs.count == graph.inputs.count, "expected \(graph.inputs.count) inputs")
        for (port, tensor) in zip(graph.inputs, inputs) {
            precondition(tensor.shape == port.shape, "input '\(port.name)' must be \(port.shape), got \(tensor.shape)")
            tensor.withUnsafeBufferPointer { pointer(port.value).update(from: $0.baseAddress!, count: $0.count) }
        }
        let nodes = graph.nodes
        let zeros = [Float](repeating: 0, count: 4096)
        for (stepIndex, step) in steps.enumerated() {
            let started = timing == nil ? 0 : DispatchTime.now().uptimeNanoseconds
            defer {
                if let timing { timing(stepKinds[stepIndex], Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9) }
            }
            switch step {
            case .pointwise(let index, let residual, let activation, let slopes, let output):
                let node = nodes[index]
                let x = shapes[node.inputs[0]], outChannels = shapes[node.inputs[1]][3]
                withBias(node, outChannels, zeros) { bias in
                    if let weights = packedFilters[index] {
                        Kernels.pointwise(input: pointer(node.inputs[0]), rows: x[0] * x[1] * x[2], weights: weights, bias: bias,
                                          activation: activation, residual: residual.map { UnsafePointer(pointer($0)) },
                                          slopes: slopes.map { UnsafePointer(pointer($0)) }, output: pointer(output))
                        return
                    }
                    Kernels.pointwise(input: pointer(node.inputs[0]), rows: x[0] * x[1] * x[2], inputChannels: x[3],
                                      filter: pointer(node.inputs[1]), outputChannels: outChannels, bias: bias,
                                      activation: activation, residual: residual.map { UnsafePointer(pointer($0)) },
                                      slopes: slopes.map { UnsafePointer(pointer($0)) }, output: pointer(output))
                }
            case .convolution(let index, let input, let geometry, let slopes, let output):
                let node = nodes[index]
                let outChannels = shapes[node.inputs[1]][3]
                withBias(node, outChannels, zeros) { bias in
                    if let weights = packedFilters[index] {
                        Kernels.convolution(input: pointer(input), geometry: geometry, weights: weights, bias: bias,
                                            activation: GraphNetwork.activation(node.activation),
                                            slopes: slopes.map { UnsafePointer(pointer($0)) }, workspace: workspace,
                                            output: pointer(output))
                        return
                    }
                    Kernels.convolution(input: pointer(input), geometry: geometry, filter: pointer(node.inputs[1]),
                                        outputChannels: outChannels, bias: bias, activation: GraphNetwork.activation(node.activation),
                                        slopes: slopes.map { UnsafePointer(pointer($0)) }, workspace: workspace, output: pointer(output))
                }
            case .narrowConvolution(let index, let input, let geometry, let filterIndex):
                let node = nodes[index]
                let outChannels = shapes[node.inputs[1]][3]
                withBias(node, outChannels, zeros) { bias in
                    Kernels.narrowConvolution(input: pointer(input), geometry: geometry, filter: narrowFilters[filterIndex],
                                              outputChannels: outChannels, bias: bias,
                                              activation: GraphNetwork.activation(node.activation), output: pointer(node.output))
                }
            case .depthwise(let index, let input, let geometry):
                let node = nodes[index]
                withBias(node, geometry.channels, zeros) { bias in
                    Kernels.depthwise(input: pointer(input), geometry: geometry, filter: pointer(node.inputs[1]), bias: bias,
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
                let channels = shapes[node.output].last!
                Kernels.prelu(pointer(node.inputs[0]), rows: shapes[node.output].reduce(1, *) / channels, channels: channels,
                              slopes: pointer(node.inputs[1]), output: pointer(node.output))
            case .maxPool(let index, let geometry):
                Kernels.maxPool(input: pointer(nodes[index].inputs[0]), geometry: geometry, output: pointer(nodes[index].output))
            case .resize(let index):
                let node = nodes[index]
                let x = shapes[node.inputs[0]], y = shapes[node.output]
                Kernels.resizeBilinear(input: pointer(node.inputs[0]), batch: x[0], height: x[1], width: x[2], channels: x[3],
                                       outputHeight: y[1], outputWidth: y[2], alignCorners: node.alignCorners ?? false,
                                       halfPixelCenters: node.halfPixelCenters ?? false, output: pointer(node.output))
            case .dense(let index):
                let node = nodes[index]
                let weights = packedFilters[index]!
                withBias(node, weights.columns, zeros) { bias in
                    Kernels.pointwise(input: pointer(node.inputs[0]), rows: shapes[node.inputs[0]].reduce(1, *) / weights.rows,
                                      weights: weights, bias: bias, activation: GraphNetwork.activation(node.activation),
                                      output: pointer(node.output))
                }
            case .spatialMean(let index):
                let node = nodes[index]
                let x = shapes[node.inputs[0]]
                Kernels.spatialMean(pointer(node.inputs[0]), batch: x[0], pixels: x[1] * x[2], channels: x[3],
                                    output: pointer(node.output))
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

    /// What each step is, for profiles: "pointwise 14²×112→672", "depthwise 5×5 s1 14²×672", ….
    public var stepKinds: [String] {
        steps.map { step in
            let node = graph.nodes[step.node]
            switch step {
            case .pointwise(_, let residual, _, let slopes, _):
                let x = shapes[node.inputs[0]]
                return "pointwise\(residual == nil ? "" : "+add")\(slopes == nil ? "" : "+prelu") \(x[1])²×\(x[3])→\(shapes[node.inputs[1]][3])"
            case .convolution(_, _, let g, let slopes, _):
                return "conv\(slopes == nil ? "" : "+prelu") \(g.kernelHeight)×\(g.kernelWidth) s\(g.strideHeight) \(g.inputHeight)²×\(g.channels)→\(shapes[node.inputs[1]][3])"
            case .narrowConvolution(_, _, let g, _):
                return "narrow conv \(g.kernelHeight)×\(g.kernelWidth) \(g.inputHeight)²×\(g.channels)→\(shapes[node.inputs[1]][3])"
            case .depthwise(_, _, let g): return "depthwise \(g.kernelHeight)×\(g.kernelWidth) s\(g.strideHeight) \(g.inputHeight)²×\(g.channels)"
            case .maxPool(_, let g): return "max-pool \(g.kernelHeight)×\(g.kernelWidth) \(g.inputHeight)²×\(g.channels)"
            case .resize: return "resize-bilinear \(shapes[node.inputs[0]][1])²→\(shapes[node.output][1])²×\(shapes[node.output][3])"
            case .dense: return "dense \(shapes[node.inputs[1]][0])→\(shapes[node.inputs[1]][1])"
            case .spatialMean: return "mean \(shapes[node.inputs[0]][1])²×\(shapes[node.inputs[0]][3])"
            case .add, .pad, .prelu, .general: return node.operation.rawValue
            }
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
