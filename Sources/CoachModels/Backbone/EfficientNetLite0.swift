import CoachNN
import Foundation

/// The pretrained EfficientNet-Lite0 backbone, for inference, with batch norm folded
/// into the convolutions and bias + ReLU6 fused into the kernels that produce them.
///
/// Architecture (verified against `shared/reference/efficientnet-lite0/effnet_reference.py`):
/// a 3×3/2 stem to 32 channels, 16 MBConv blocks (expand 1×1 → depthwise k×k → project 1×1,
/// identity skip when shape allows, ReLU6, no squeeze-excite), a 1×1 head to 1280
/// channels, global average pooling and a 1000-way classifier. TensorFlow SAME padding,
/// batch-norm ε = 1e-3. Input: NHWC RGB normalised as (x − 127) / 128.
public final class EfficientNetLite0 {
    /// The 16 MBConv blocks.
    public static var blocks: [MBConvBlockSpecification] { EfficientNetLite0Layout.blocks }
    /// The index of the last block whose output has stride 16 (112 channels).
    public static let stride16BlockIndex = 10
    /// Channels of the pooled features and of the stride-32 map (the head's output).
    public static let featureCount = EfficientNetLite0Layout.headChannels
    /// Channels of the stride-16 map.
    public static let stride16Channels = 112
    /// ImageNet classes of the classifier.
    public static let classCount = EfficientNetLite0Layout.classCount
    /// Bumped whenever a change to the forward pass changes its floating-point results
    /// (even in the last bit), so caches of features computed earlier are not reused.
    public static let computationVersion = 3

    /// A convolution with folded batch norm: filter (HWIO, or [kh, kw, C] for depthwise) and bias.
    public struct FoldedConvolution: Sendable {
        /// The filter with the batch-norm scale folded in: HWIO `[kh, kw, C_in, C_out]`, or `[kh, kw, C]` for depthwise.
        public let filter: [Float]
        /// The bias [C_out]: the batch norm's offset minus its scaled running mean.
        public let bias: [Float]
        /// Output channels C_out (the filter's last axis).
        public let outputChannels: Int
    }

    /// One MBConv block's folded convolutions, as the forward pass runs them.
    public struct FoldedBlock: Sendable {
        /// The block's architecture.
        public let specification: MBConvBlockSpecification
        /// The 1×1 expansion (ReLU6 after it), absent when the expand ratio is 1.
        public let expand: FoldedConvolution?
        /// The k×k depthwise convolution (ReLU6 after it).
        public let depthwise: FoldedConvolution
        /// The 1×1 projection (no activation; the input is added when the block has a skip connection).
        public let project: FoldedConvolution
    }

    /// The 3×3/2 stem convolution (ReLU6 after it), batch norm folded in; exporters read it.
    public let stem: FoldedConvolution
    /// The 16 blocks with batch norm folded in, as the forward pass runs them.
    public let foldedBlocks: [FoldedBlock]
    /// The 1×1 head convolution to 1280 channels (ReLU6 after it), batch norm folded in.
    public let head: FoldedConvolution
    /// The stem's, head's and each block's 1×1 filters packed for `Kernels`' packed GEMM.
    let packedStem: PackedWeights, packedHead: PackedWeights
    let packedExpand: [PackedWeights?], packedProject: [PackedWeights]
    let classifierWeight: Tensor  // [1280, 1000]
    let classifierBias: Tensor

    /// Builds the backbone from unfolded weights (Coach's dotted names, as written by
    /// `coach import-backbone`). Throws listing every missing or mis-shaped tensor.
    public init(weights: [String: Tensor]) throws {
        let mismatches = ModelFile.mismatches(actual: weights.mapValues(\.shape),
                                              expected: EfficientNetLite0Layout.parameterShapes,
                                              allowingUnexpected: true)
        if !mismatches.isEmpty { throw BackboneError.incompatibleWeights(mismatches.map(\.description)) }

        let epsilon = Float(EfficientNetLite0Layout.batchNormEpsilon)
        func fold(_ prefix: String) -> FoldedConvolution {
            let w = weights["\(prefix).conv.weight"]!
            let gamma = weights["\(prefix).bn.scale"]!, beta = weights["\(prefix).bn.offset"]!
            let mean = weights["\(prefix).bn.runningMean"]!, variance = weights["\(prefix).bn.runningVariance"]!
            let scale = gamma / (variance + epsilon).sqrt()
            // The output channel is the last axis of both HWIO and depthwise filters.
            return FoldedConvolution(filter: (w * scale).scalars, bias: (beta - mean * scale).scalars,
                                     outputChannels: w.shape.last!)
        }
        stem = fold("stem")
        foldedBlocks = Self.blocks.enumerated().map { i, spec in
            FoldedBlock(specification: spec,
                        expand: spec.expandRatio == 1 ? nil : fold("blocks.\(i).expand"),
                        depthwise: fold("blocks.\(i).depthwise"),
                        project: fold("blocks.\(i).project"))
        }
        head = fold("head")
        func pack(_ convolution: FoldedConvolution) -> PackedWeights {
            PackedWeights.packing(convolution.filter, rows: convolution.filter.count / convolution.outputChannels,
                                  columns: convolution.outputChannels)
        }
        packedStem = pack(stem)
        packedHead = pack(head)
        packedExpand = foldedBlocks.map { $0.expand.map(pack) }
        packedProject = foldedBlocks.map { pack($0.project) }
        classifierWeight = weights["classifier.weight"]!
        classifierBias = weights["classifier.bias"]!
    }

    /// Which feature maps a forward pass keeps.
    public struct Outputs: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// The stride-16 map [N, H/16, W/16, 112].
        public static let stride16 = Outputs(rawValue: 1)
        /// The stride-32 map (head activations) [N, H/32, W/32, 1280].
        public static let stride32 = Outputs(rawValue: 2)
    }

    /// The result of a forward pass.
    public struct Result {
        /// Globally pooled head activations [N, 1280].
        public var features: Tensor
        /// [N, ⌈H/16⌉, ⌈W/16⌉, 112] when requested.
        public var stride16: Tensor?
        /// [N, ⌈H/32⌉, ⌈W/32⌉, 1280] when requested.
        public var stride32: Tensor?
    }

    /// Runs the network on normalised NHWC images [N, H, W, 3] (any H, W ≥ 32).
    ///
    /// Images run one at a time through buffers reused across layers, so activations
    /// stay in cache and every image's result is independent of its batch, bit for bit.
    public func forward(_ images: Tensor, keeping outputs: Outputs = []) -> Result {
        precondition(images.rank == 4 && images.shape[3] == 3, "backbone input must be [N, H, W, 3], got \(images.shape)")
        let plan = ForwardPlan(network: self, batch: images.shape[0], height: images.shape[1], width: images.shape[2])
        return plan.run(images, outputs: outputs)
    }

    /// Pooled 1280-d features of normalised images [N, H, W, 3].
    public func features(_ images: Tensor) -> Tensor { forward(images).features }

    /// ImageNet logits [N, 1000] from pooled features [N, 1280].
    public func logits(features: Tensor) -> Tensor {
        Tensor.matmul(features, classifierWeight) + classifierBias
    }
}

/// Errors from loading or running the backbone.
public enum BackboneError: Error, LocalizedError {
    /// The weight file does not hold the expected tensors (every problem listed).
    case incompatibleWeights([String])
    /// The file holds another kind of model.
    case notABackbone(path: String, task: String)
    /// No backbone file was found where Coach looks for it.
    case notFound(searched: String)
    /// A head model needs a different backbone than the one given.
    case mismatch(model: String, expectedName: String, expectedSHA256: String, foundName: String, foundSHA256: String, backbonePath: String)
    /// The backbone file carries no checksum of its weights (an older Coach imported it).
    case unverified(path: String)

    public var errorDescription: String? {
        switch self {
        case .incompatibleWeights(let problems):
            return "the backbone weights do not match EfficientNet-Lite0 (\(problems.count) problem\(problems.count == 1 ? "" : "s")):\n  "
                + problems.prefix(20).joined(separator: "\n  ")
                + (problems.count > 20 ? "\n  … and \(problems.count - 20) more" : "")
                + "\nRe-create the file with: coach import-backbone PATH.pth"
        case let .notABackbone(path, task):
            return "\(path): this is a '\(task)' model, not a backbone; pass the backbone file written by 'coach import-backbone' (models/efficientnet-lite0.h5)"
        case let .notFound(searched):
            return "the pretrained backbone was not found (looked for \(searched)); run 'make build' to fetch and import it, or pass --backbone PATH / set COACH_BACKBONE"
        case let .mismatch(model, expectedName, expectedSHA, foundName, foundSHA, backbonePath):
            return "\(model) was trained on backbone \(expectedName) with SHA-256 \(expectedSHA), but \(backbonePath) is \(foundName) with SHA-256 \(foundSHA); use the backbone file the model was trained with (or retrain the model)"
        case let .unverified(path):
            return "\(path): this backbone was imported by an older Coach and carries no checksum of its weights, so a damaged copy "
                + "would go unnoticed; import it again ('make weights' does, after removing the file, or 'coach import-backbone PATH.pth --output \(path) --overwrite')"
        }
    }
}
