import CoachNN

/// The action classifier's network: input batch norm over every joint's channels (as Create ML's
/// ST-GCN begins), then graph or temporal convolution blocks, global average pooling and a
/// linear classifier. Input [N, T, J, K] (an `ActionInputEncoding`'s tensor), output logits [N, classes].
///
/// Parameters live under stable dotted names: `inputNorm.*`, `blocks.<i>.*`, `classifier.*`.
public final class ActionClassifierNetwork: Module {
    /// The architecture it was built from.
    public let architecture: ActionClassifierArchitecture
    /// Joints per frame (J).
    public let jointCount: Int
    /// Channels per joint (K).
    public let inputChannels: Int
    /// The number of classes.
    public let classCount: Int
    /// The input batch norm over every joint's channels (feature `j · K + k`).
    public let inputNorm: BatchNorm
    /// `GraphConvolutionBlock`s or `TemporalConvolutionBlock`s.
    public let blocks: [Module]
    /// The linear classifier on the pooled features.
    public let classifier: Linear
    private let dropout: Dropout

    /// A freshly initialised network; `graph` gives the graph blocks' initial adjacency.
    public init(architecture: ActionClassifierArchitecture, graph: SkeletonGraph, inputChannels: Int,
                classCount: Int, generator: inout SeededGenerator) {
        self.architecture = architecture
        self.jointCount = graph.jointCount
        self.inputChannels = inputChannels
        self.classCount = classCount
        inputNorm = BatchNorm(featureCount: graph.jointCount * inputChannels)
        var blocks: [Module] = []
        switch architecture.kind {
        case .graphConvolution:
            var channels = inputChannels
            let partitions = graph.partitions()
            for (width, stride) in zip(architecture.channels, architecture.strides) {
                blocks.append(GraphConvolutionBlock(adjacency: partitions, inputChannels: channels, outputChannels: width,
                                                    stride: stride, temporalKernelSize: architecture.temporalKernelSize,
                                                    separable: architecture.separableTemporalConvolution,
                                                    dropout: architecture.dropout, generator: &generator))
                channels = width
            }
        case .temporalConvolution:
            var channels = graph.jointCount * inputChannels
            for (width, stride) in zip(architecture.channels, architecture.strides) {
                blocks.append(TemporalConvolutionBlock(inputChannels: channels, outputChannels: width, stride: stride,
                                                       kernelSize: architecture.temporalKernelSize,
                                                       dropout: architecture.dropout, generator: &generator))
                channels = width
            }
        }
        self.blocks = blocks
        classifier = Linear(inputSize: architecture.channels[architecture.channels.count - 1], outputSize: classCount,
                            generator: &generator)
        dropout = Dropout(rate: architecture.dropout)
    }

    /// The blocks and layers under their stable names.
    public var children: [(String, Module)] {
        [("inputNorm", inputNorm)] + blocks.enumerated().map { ("blocks.\($0.offset)", $0.element) }
            + [("classifier", classifier)]
    }

    /// Logits [N, classes] for encoded windows `x` [N, T, J, K].
    public func callAsFunction(_ x: Variable) -> Variable {
        let n = x.shape[0], t = x.shape[1], j = x.shape[2], k = x.shape[3]
        precondition(j == jointCount && k == inputChannels, "expected [N, T, \(jointCount), \(inputChannels)], got \(x.shape)")
        var h = inputNorm(x.reshaped(to: [n, t, j * k]))
        switch architecture.kind {
        case .graphConvolution:
            h = h.reshaped(to: [n, t, j, k])
            for block in blocks { if let block = block as? GraphConvolutionBlock { h = block(h) } }
            let s = h.shape
            h = h.reshaped(to: [n, s[1] * s[2], s[3]]).mean(alongAxes: [1])
        case .temporalConvolution:
            for block in blocks { if let block = block as? TemporalConvolutionBlock { h = block(h) } }
            h = h.mean(alongAxes: [1])
        }
        return classifier(dropout(h))
    }
}

/// One ST-GCN block: a graph convolution (joints mixed through a learned adjacency per
/// partition, then a linear map of the partitions' features), batch norm and ReLU, a temporal
/// convolution (kernel × 1 over [T, J]) and batch norm, dropout, a residual connection and ReLU.
public final class GraphConvolutionBlock: Module {
    /// The learned adjacency [P, J, J], initialised from the skeleton's normalised partitions.
    public let adjacency: Parameter
    /// The linear map of the partitions' features [P · C_in → C_out] (feature `p · C_in + c`).
    public let spatial: Linear
    public let spatialNorm: BatchNorm
    public let temporal: TemporalConvolution?
    public let temporalDepthwise: DepthwiseTemporalConvolution?
    public let temporalPointwise: Linear?
    public let temporalNorm: BatchNorm
    public let residual: TemporalConvolution?
    public let residualNorm: BatchNorm?
    let dropout: Dropout
    /// The temporal stride.
    public let stride: Int

    init(adjacency partitions: Tensor, inputChannels: Int, outputChannels: Int, stride: Int, temporalKernelSize: Int,
         separable: Bool, dropout rate: Float, generator: inout SeededGenerator) {
        adjacency = Parameter(partitions)
        let p = partitions.shape[0]
        spatial = Linear(inputSize: p * inputChannels, outputSize: outputChannels, initializer: .heNormal,
                         generator: &generator)
        spatialNorm = BatchNorm(featureCount: outputChannels, relu: true)
        if separable {
            temporal = nil
            temporalDepthwise = DepthwiseTemporalConvolution(kernelSize: temporalKernelSize, channels: outputChannels,
                                                             stride: stride, generator: &generator)
            temporalPointwise = Linear(inputSize: outputChannels, outputSize: outputChannels, useBias: false,
                                       initializer: .heNormal, generator: &generator)
        } else {
            temporal = TemporalConvolution(kernelSize: temporalKernelSize, inputChannels: outputChannels,
                                           outputChannels: outputChannels, stride: stride, generator: &generator)
            temporalDepthwise = nil
            temporalPointwise = nil
        }
        temporalNorm = BatchNorm(featureCount: outputChannels)
        if inputChannels != outputChannels || stride != 1 {
            residual = TemporalConvolution(kernelSize: 1, inputChannels: inputChannels, outputChannels: outputChannels,
                                           stride: stride, generator: &generator)
            residualNorm = BatchNorm(featureCount: outputChannels)
        } else {
            residual = nil
            residualNorm = nil
        }
        dropout = Dropout(rate: rate)
        self.stride = stride
    }

    public var localParameters: [(String, Parameter)] { [("adjacency", adjacency)] }

    public var children: [(String, Module)] {
        var list: [(String, Module)] = [("spatial", spatial), ("spatialNorm", spatialNorm)]
        if let temporal { list.append(("temporal", temporal)) }
        if let temporalDepthwise, let temporalPointwise {
            list += [("temporalDepthwise", temporalDepthwise), ("temporalPointwise", temporalPointwise)]
        }
        list.append(("temporalNorm", temporalNorm))
        if let residual, let residualNorm { list += [("residual", residual), ("residualNorm", residualNorm)] }
        return list
    }

    public func callAsFunction(_ x: Variable) -> Variable {
        let n = x.shape[0], t = x.shape[1], j = x.shape[2], c = x.shape[3]
        let a = x.tape.variable(for: adjacency)
        let p = a.shape[0]
        // Mix joints: for every frame, out[i, p, :] = Σ_j A[p, i, j] · x[j, :] — each frame's
        // [J·P, J] · [J, C] product where the frame lies, written as the spatial map reads it
        // (`Variable.jointMixing`).
        let rows = a.permuted([1, 0, 2]).reshaped(to: [j * p, j])
        let mixed = Variable.jointMixing(x.reshaped(to: [n * t, j, c]), adjacency: rows).reshaped(to: [n, t, j, p * c])
        var h = spatialNorm(spatial(mixed))
        if let temporal {
            h = temporal(h)
        } else if let temporalDepthwise, let temporalPointwise {
            h = temporalPointwise(temporalDepthwise(h))
        }
        h = dropout(temporalNorm(h))
        let shortcut: Variable
        if let residual, let residualNorm { shortcut = residualNorm(residual(x)) } else { shortcut = x }
        return (h + shortcut).relu()
    }
}

/// One residual temporal block over [N, T, C]: two convolutions over time (the first with the
/// block's stride) with batch norm, ReLU after the first, dropout, a residual connection and ReLU.
public final class TemporalConvolutionBlock: Module {
    public let first: TemporalConvolution
    public let firstNorm: BatchNorm
    public let second: TemporalConvolution
    public let secondNorm: BatchNorm
    public let residual: TemporalConvolution?
    public let residualNorm: BatchNorm?
    let dropout: Dropout

    init(inputChannels: Int, outputChannels: Int, stride: Int, kernelSize: Int, dropout rate: Float,
         generator: inout SeededGenerator) {
        first = TemporalConvolution(kernelSize: kernelSize, inputChannels: inputChannels, outputChannels: outputChannels,
                                    stride: stride, generator: &generator)
        firstNorm = BatchNorm(featureCount: outputChannels, relu: true)
        second = TemporalConvolution(kernelSize: kernelSize, inputChannels: outputChannels, outputChannels: outputChannels,
                                     generator: &generator)
        secondNorm = BatchNorm(featureCount: outputChannels)
        if inputChannels != outputChannels || stride != 1 {
            residual = TemporalConvolution(kernelSize: 1, inputChannels: inputChannels, outputChannels: outputChannels,
                                           stride: stride, generator: &generator)
            residualNorm = BatchNorm(featureCount: outputChannels)
        } else {
            residual = nil
            residualNorm = nil
        }
        dropout = Dropout(rate: rate)
    }

    public var children: [(String, Module)] {
        var list: [(String, Module)] = [("first", first), ("firstNorm", firstNorm), ("second", second),
                                        ("secondNorm", secondNorm)]
        if let residual, let residualNorm { list += [("residual", residual), ("residualNorm", residualNorm)] }
        return list
    }

    /// [N, T, C] → [N, T', C'].
    public func callAsFunction(_ x: Variable) -> Variable {
        let n = x.shape[0], t = x.shape[1], c = x.shape[2]
        let y = callAsFunction(frames: x.reshaped(to: [n, t, 1, c]))
        return y.reshaped(to: [n, y.shape[1], y.shape[3]])
    }

    /// [N, T, 1, C] → [N, T', 1, C'].
    func callAsFunction(frames x: Variable) -> Variable {
        var h = firstNorm(first(x))
        h = dropout(secondNorm(second(h)))
        let shortcut: Variable
        if let residual, let residualNorm { shortcut = residualNorm(residual(x)) } else { shortcut = x }
        return (h + shortcut).relu()
    }
}
