/// The shape of a hand-pose classifier's network, stored in its model file.
public struct HandPoseClassifierArchitecture: Codable, Equatable, Hashable, Sendable {
    /// The network family.
    public enum Kind: String, Codable, Hashable, Sendable, CaseIterable {
        /// A multilayer perceptron on the pose's joints flattened: batch norm, then hidden
        /// layers of linear map, batch norm, ReLU and dropout, then a linear classifier.
        case multilayerPerceptron = "mlp"
        /// The action classifier's graph network on a one-frame window: graph convolutions over
        /// the hand's skeleton (learned adjacency), pooled over the joints.
        case graphConvolution = "graph-convolution"
    }

    /// The network family.
    public var kind: Kind
    /// Widths of the hidden layers (perceptron) or output channels of the graph blocks.
    public var hiddenSizes: [Int]
    /// Dropout rate after each hidden layer or block.
    public var dropout: Float

    /// An architecture of `kind` with `hiddenSizes`.
    public init(kind: Kind, hiddenSizes: [Int], dropout: Float) {
        precondition(!hiddenSizes.isEmpty, "at least one hidden layer")
        self.kind = kind
        self.hiddenSizes = hiddenSizes
        self.dropout = dropout
    }

    /// Coach's default perceptron: hidden layers of 256 and 128, dropout 0.2.
    public static func multilayerPerceptron() -> HandPoseClassifierArchitecture {
        HandPoseClassifierArchitecture(kind: .multilayerPerceptron, hiddenSizes: [256, 128], dropout: 0.2)
    }

    /// Coach's default graph network: blocks of 32, 64 and 64 channels, dropout 0.2.
    public static func graphConvolution() -> HandPoseClassifierArchitecture {
        HandPoseClassifierArchitecture(kind: .graphConvolution, hiddenSizes: [32, 64, 64], dropout: 0.2)
    }

    /// The default shape of `kind`.
    public static func standard(_ kind: Kind) -> HandPoseClassifierArchitecture {
        kind == .multilayerPerceptron ? multilayerPerceptron() : graphConvolution()
    }

    /// The action network's shape for the graph family on `graph`: one frame, so temporal
    /// convolutions span one frame and never stride.
    public func actionArchitecture(for graph: SkeletonGraph) -> ActionClassifierArchitecture {
        ActionClassifierArchitecture(kind: .graphConvolution, channels: hiddenSizes,
                                     strides: [Int](repeating: 1, count: hiddenSizes.count), temporalKernelSize: 1,
                                     dropout: dropout, partitionCount: graph.partitionCount)
    }
}
