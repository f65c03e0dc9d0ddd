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
    /// One MBConv block's shape.
    public struct BlockSpecification: Equatable, Sendable {
        public let kernel, stride, expandRatio, inputChannels, outputChannels: Int
    }

    /// The 16 blocks: stages of (kernel, stride, expand ratio, output channels, repeats).
    public static let blocks: [BlockSpecification] = {
        let stages = [(3, 1, 1, 16, 1), (3, 2, 6, 24, 2), (5, 2, 6, 40, 2), (3, 2, 6, 80, 3),
                      (5, 1, 6, 112, 3), (5, 2, 6, 192, 4), (3, 1, 6, 320, 1)]
        var result: [BlockSpecification] = []
        var c = 32
        for (k, s, e, co, r) in stages {
            for i in 0..<r {
                result.append(BlockSpecification(kernel: k, stride: i == 0 ? s : 1, expandRatio: e,
                                                 inputChannels: c, outputChannels: co))
                c = co
            }
        }
        return result
    }()

    /// The index of the last block whose output has stride 16 (112 channels).
    public static let stride16BlockIndex = 10
    /// Channels of the pooled features and of the stride-32 map (the head's output).
    public static let featureCount = 1280
    /// Channels of the stride-16 map.
    public static let stride16Channels = 112
    /// ImageNet classes of the classifier.
    public static let classCount = 1000
    /// Batch-norm epsilon of the pretrained weights.
    public static let batchNormEpsilon: Float = 1e-3

    /// A convolution with folded batch norm: filter (HWIO, or [kh, kw, C] for depthwise) and bias.
    struct FoldedConvolution {
        let filter: Tensor
        let bias: Tensor
    }

    struct FoldedBlock {
        let specification: BlockSpecification
        let expand: FoldedConvolution?
        let depthwise: FoldedConvolution
        let project: FoldedConvolution
    }

    let stem: FoldedConvolution
    let foldedBlocks: [FoldedBlock]
    let head: FoldedConvolution
    let classifierWeight: Tensor  // [1280, 1000]
    let classifierBias: Tensor

    /// The names and shapes of every tensor the backbone file must hold.
    public static var expectedTensors: [(name: String, shape: [Int])] {
        var result: [(String, [Int])] = []
        func conv(_ prefix: String, _ shape: [Int]) {
            result.append(("\(prefix).conv.weight", shape))
            let c = shape.last!
            for p in ["scale", "offset", "runningMean", "runningVariance"] { result.append(("\(prefix).bn.\(p)", [c])) }
        }
        conv("stem", [3, 3, 3, 32])
        for (i, b) in blocks.enumerated() {
            let hidden = b.inputChannels * b.expandRatio
            if b.expandRatio != 1 { conv("blocks.\(i).expand", [1, 1, b.inputChannels, hidden]) }
            conv("blocks.\(i).depthwise", [b.kernel, b.kernel, hidden])
            conv("blocks.\(i).project", [1, 1, hidden, b.outputChannels])
        }
        conv("head", [1, 1, 320, featureCount])
        result.append(("classifier.weight", [featureCount, classCount]))
        result.append(("classifier.bias", [classCount]))
        return result
    }

    /// Builds the backbone from unfolded weights (Coach's dotted names, as written by
    /// `coach import-backbone`). Throws listing every missing or mis-shaped tensor.
    public init(weights: [String: Tensor]) throws {
        var problems: [String] = []
        for (name, shape) in Self.expectedTensors {
            guard let t = weights[name] else { problems.append("missing tensor '\(name)' (shape \(shape))"); continue }
            if t.shape != shape { problems.append("tensor '\(name)' has shape \(t.shape), expected \(shape)") }
        }
        if !problems.isEmpty { throw BackboneError.incompatibleWeights(problems) }

        func fold(_ prefix: String) -> FoldedConvolution {
            let w = weights["\(prefix).conv.weight"]!
            let gamma = weights["\(prefix).bn.scale"]!, beta = weights["\(prefix).bn.offset"]!
            let mean = weights["\(prefix).bn.runningMean"]!, variance = weights["\(prefix).bn.runningVariance"]!
            let scale = gamma / (variance + Self.batchNormEpsilon).sqrt()
            // The output channel is the last axis of both HWIO and depthwise filters.
            return FoldedConvolution(filter: w * scale, bias: beta - mean * scale)
        }
        stem = fold("stem")
        foldedBlocks = Self.blocks.enumerated().map { i, spec in
            FoldedBlock(specification: spec,
                        expand: spec.expandRatio == 1 ? nil : fold("blocks.\(i).expand"),
                        depthwise: fold("blocks.\(i).depthwise"),
                        project: fold("blocks.\(i).project"))
        }
        head = fold("head")
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
    public func forward(_ images: Tensor, keeping outputs: Outputs = []) -> Result {
        precondition(images.rank == 4 && images.shape[3] == 3, "backbone input must be [N, H, W, 3], got \(images.shape)")
        var x = Tensor.conv2D(images, filter: stem.filter, bias: stem.bias, stride: (2, 2), padding: .same,
                              activation: .relu6)
        var stride16: Tensor? = nil
        for (i, block) in foldedBlocks.enumerated() {
            x = Self.run(block, x)
            if i == Self.stride16BlockIndex && outputs.contains(.stride16) { stride16 = x }
        }
        let headMap = Tensor.conv2D(x, filter: head.filter, bias: head.bias, activation: .relu6)
        return Result(features: Tensor.globalAveragePool(headMap), stride16: stride16,
                      stride32: outputs.contains(.stride32) ? headMap : nil)
    }

    static func run(_ block: FoldedBlock, _ input: Tensor) -> Tensor {
        let s = block.specification
        var h = input
        if let expand = block.expand {
            h = Tensor.conv2D(h, filter: expand.filter, bias: expand.bias, activation: .relu6)
        }
        h = Tensor.depthwiseConv2D(h, filter: block.depthwise.filter, bias: block.depthwise.bias,
                                   stride: (s.stride, s.stride), padding: .same, activation: .relu6)
        if s.stride == 1 && s.inputChannels == s.outputChannels {
            return Tensor.pointwiseConvolution(h, filter: block.project.filter, bias: block.project.bias,
                                               residual: input)
        }
        return Tensor.conv2D(h, filter: block.project.filter, bias: block.project.bias)
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
        }
    }
}
