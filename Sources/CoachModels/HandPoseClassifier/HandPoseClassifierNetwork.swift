import CoachNN

/// A hand-pose classifier's network: input [N, 1, J, K] (a `HandPoseInputEncoding`'s tensor),
/// output logits [N, classes]; a perceptron or the action classifier's graph network (see
/// `HandPoseClassifierArchitecture`).
///
/// Parameters live under stable dotted names: the perceptron's `inputNorm.*`, `hidden.<i>.*`,
/// `hiddenNorm.<i>.*`, `classifier.*`; the graph network's as `ActionClassifierNetwork` names them.
public final class HandPoseClassifierNetwork: Module {
    /// The architecture it was built from.
    public let architecture: HandPoseClassifierArchitecture
    /// Joints per pose (J).
    public let jointCount: Int
    /// Channels per joint (K).
    public let inputChannels: Int
    /// The number of classes.
    public let classCount: Int
    /// The perceptron (`.multilayerPerceptron`).
    public let perceptron: HandPosePerceptron?
    /// The graph network on a one-frame window (`.graphConvolution`).
    public let graph: ActionClassifierNetwork?

    /// A freshly initialised network over `skeleton`'s joints.
    public init(architecture: HandPoseClassifierArchitecture, skeleton: SkeletonGraph, inputChannels: Int,
                classCount: Int, generator: inout SeededGenerator) {
        self.architecture = architecture
        jointCount = skeleton.jointCount
        self.inputChannels = inputChannels
        self.classCount = classCount
        switch architecture.kind {
        case .multilayerPerceptron:
            perceptron = HandPosePerceptron(inputSize: skeleton.jointCount * inputChannels, hiddenSizes: architecture.hiddenSizes,
                                            dropout: architecture.dropout, classCount: classCount, generator: &generator)
            graph = nil
        case .graphConvolution:
            perceptron = nil
            graph = ActionClassifierNetwork(architecture: architecture.actionArchitecture(for: skeleton), graph: skeleton,
                                            inputChannels: inputChannels, classCount: classCount, generator: &generator)
        }
    }

    /// The layers under their stable names.
    public var children: [(String, Module)] { perceptron?.children ?? graph?.children ?? [] }

    /// Logits [N, classes] for encoded poses `x` [N, 1, J, K].
    public func callAsFunction(_ x: Variable) -> Variable {
        precondition(x.shape.count == 4 && x.shape[2] == jointCount && x.shape[3] == inputChannels,
                     "expected [N, 1, \(jointCount), \(inputChannels)], got \(x.shape)")
        if let perceptron { return perceptron(x.reshaped(to: [x.shape[0], x.shape[1] * jointCount * inputChannels])) }
        if let graph { return graph(x) }
        preconditionFailure("a hand-pose network has a perceptron or a graph")
    }
}

/// Batch norm of the flattened pose, then hidden layers (linear, batch norm with ReLU, dropout),
/// then a linear classifier.
public final class HandPosePerceptron: Module {
    /// Over the flattened pose (feature `j · K + k`).
    public let inputNorm: BatchNorm
    /// Hidden layers (no bias; a batch norm with ReLU follows each).
    public let hidden: [Linear]
    public let hiddenNorms: [BatchNorm]
    public let classifier: Linear
    let dropout: Dropout

    init(inputSize: Int, hiddenSizes: [Int], dropout rate: Float, classCount: Int, generator: inout SeededGenerator) {
        inputNorm = BatchNorm(featureCount: inputSize)
        var layers: [Linear] = [], norms: [BatchNorm] = []
        var width = inputSize
        for size in hiddenSizes {
            layers.append(Linear(inputSize: width, outputSize: size, useBias: false, initializer: .heNormal, generator: &generator))
            norms.append(BatchNorm(featureCount: size, relu: true))
            width = size
        }
        hidden = layers
        hiddenNorms = norms
        classifier = Linear(inputSize: width, outputSize: classCount, generator: &generator)
        dropout = Dropout(rate: rate)
    }

    public var children: [(String, Module)] {
        [("inputNorm", inputNorm)] + hidden.enumerated().map { ("hidden.\($0.offset)", $0.element) }
            + hiddenNorms.enumerated().map { ("hiddenNorm.\($0.offset)", $0.element) } + [("classifier", classifier)]
    }

    /// [N, F] → [N, classes].
    public func callAsFunction(_ x: Variable) -> Variable {
        var h = inputNorm(x)
        for (layer, norm) in zip(hidden, hiddenNorms) { h = dropout(norm(layer(h))) }
        return classifier(h)
    }
}
