/// The shape of an action classifier's network, stored in its model file.
public struct ActionClassifierArchitecture: Codable, Equatable, Hashable, Sendable {
    /// The network family.
    public enum Kind: String, Codable, Hashable, Sendable, CaseIterable {
        /// A spatial-temporal graph convolutional network (ST-GCN): graph convolutions over the
        /// joints (built-in skeleton or learned graph) alternate with convolutions over time.
        case graphConvolution = "graph-convolution"
        /// A temporal convolutional network over all joints' channels flattened per frame.
        case temporalConvolution = "temporal-convolution"
    }

    /// The network family.
    public var kind: Kind
    /// Output channels of each block.
    public var channels: [Int]
    /// Temporal stride of each block (2 halves the frames).
    public var strides: [Int]
    /// Frames each temporal convolution spans.
    public var temporalKernelSize: Int
    /// Dropout rate after each block's temporal convolution and before the classifier.
    public var dropout: Float
    /// Adjacency partitions of each graph convolution (graph networks only; 0 otherwise).
    public var partitionCount: Int
    /// Whether each temporal convolution is depthwise-separable (a per-channel convolution over
    /// time, then a 1×1 convolution mixing channels) instead of a full convolution.
    public var separableTemporalConvolution: Bool

    /// An architecture of `kind` with blocks of `channels` and `strides`.
    public init(kind: Kind, channels: [Int], strides: [Int], temporalKernelSize: Int, dropout: Float,
                partitionCount: Int = 0, separableTemporalConvolution: Bool = false) {
        precondition(channels.count == strides.count && !channels.isEmpty, "one stride per block")
        self.kind = kind
        self.channels = channels
        self.strides = strides
        self.temporalKernelSize = temporalKernelSize
        self.dropout = dropout
        self.partitionCount = partitionCount
        self.separableTemporalConvolution = separableTemporalConvolution
    }

    /// Coach's graph network for `graph`: three blocks of 16, 32 and 32 channels, the second
    /// halving time, depthwise-separable temporal convolutions spanning 9 frames (ST-GCN's span),
    /// dropout 0.2. (Measured against ST-GCN's wider full convolutions on the generated throws, it
    /// was as accurate and several times faster.)
    public static func graphConvolution(for graph: SkeletonGraph) -> ActionClassifierArchitecture {
        ActionClassifierArchitecture(kind: .graphConvolution, channels: [16, 32, 32], strides: [1, 2, 1],
                                     temporalKernelSize: 9, dropout: 0.2, partitionCount: graph.partitionCount,
                                     separableTemporalConvolution: true)
    }

    /// Coach's default temporal network: three residual blocks of 64, 64 and 128 channels, the
    /// second and third halving time, kernel 5, dropout 0.2.
    public static func temporalConvolution() -> ActionClassifierArchitecture {
        ActionClassifierArchitecture(kind: .temporalConvolution, channels: [64, 64, 128], strides: [1, 2, 2],
                                     temporalKernelSize: 5, dropout: 0.2)
    }
}
