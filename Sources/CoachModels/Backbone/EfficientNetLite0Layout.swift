import Foundation

/// One MBConv block of EfficientNet-Lite: optional 1×1 expansion, k×k depthwise, 1×1 projection.
public struct MBConvBlockSpecification: Codable, Equatable, Sendable {
    /// The depthwise kernel size k.
    public var kernelSize: Int
    /// The depthwise stride.
    public var stride: Int
    /// The expansion ratio (1: no expansion convolution).
    public var expandRatio: Int
    /// Input channels C_in.
    public var inputChannels: Int
    /// Output channels C_out.
    public var outputChannels: Int

    /// A block specification.
    public init(kernelSize: Int, stride: Int, expandRatio: Int, inputChannels: Int, outputChannels: Int) {
        self.kernelSize = kernelSize
        self.stride = stride
        self.expandRatio = expandRatio
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
    }

    /// Channels inside the block (after expansion).
    public var expandedChannels: Int { inputChannels * expandRatio }

    /// Whether the block adds its input to its output (stride 1, same channels).
    public var hasSkipConnection: Bool { stride == 1 && inputChannels == outputChannels }
}

/// EfficientNet-Lite0's fixed architecture and the Coach names and shapes of its parameters.
///
/// Coach layout (unfolded batch norm): convolution filters HWIO `[kh, kw, C_in, C_out]`,
/// depthwise filters `[kh, kw, C]`, batch norm as `scale`, `offset`, `runningMean`,
/// `runningVariance`, classifier weight `[1280, 1000]` (input × output).
public enum EfficientNetLite0Layout {
    /// The model's name in metadata and backbone references.
    public static let name = "efficientnet-lite0"
    /// The input image size (square).
    public static let inputSize = 224
    /// Channels after the stem convolution.
    public static let stemChannels = 32
    /// Channels after the head convolution (the pooled feature size).
    public static let headChannels = 1280
    /// ImageNet classes of the pretrained classifier.
    public static let classCount = 1000
    /// Batch-norm epsilon of the TensorFlow original.
    public static let batchNormEpsilon = 1e-3

    /// (kernel, stride, expand ratio, output channels, repeats) per stage, width and depth 1.0.
    static let stages: [(kernel: Int, stride: Int, expand: Int, channels: Int, repeats: Int)] = [
        (3, 1, 1, 16, 1), (3, 2, 6, 24, 2), (5, 2, 6, 40, 2), (3, 2, 6, 80, 3),
        (5, 1, 6, 112, 3), (5, 2, 6, 192, 4), (3, 1, 6, 320, 1),
    ]

    /// The 16 MBConv blocks in order (the stride applies to a stage's first block).
    public static let blocks: [MBConvBlockSpecification] = {
        var result: [MBConvBlockSpecification] = []
        var channels = stemChannels
        for stage in stages {
            for repeatIndex in 0..<stage.repeats {
                result.append(MBConvBlockSpecification(
                    kernelSize: stage.kernel, stride: repeatIndex == 0 ? stage.stride : 1, expandRatio: stage.expand,
                    inputChannels: channels, outputChannels: stage.channels))
                channels = stage.channels
            }
        }
        return result
    }()

    /// The names of a batch norm's four parameters under `prefix` (e.g. `stem.bn`).
    public static func batchNormNames(_ prefix: String) -> [String] {
        ["scale", "offset", "runningMean", "runningVariance"].map { "\(prefix).\($0)" }
    }

    /// Every parameter's Coach name and shape (for `ModelFile.checkTensors`).
    public static var parameterShapes: [String: [Int]] {
        var shapes: [String: [Int]] = [:]
        func convolution(_ prefix: String, _ filter: [Int]) {
            shapes["\(prefix).conv.weight"] = filter
            for name in batchNormNames("\(prefix).bn") { shapes[name] = [filter.last!] }
        }
        convolution("stem", [3, 3, 3, stemChannels])
        for (index, block) in blocks.enumerated() {
            let prefix = "blocks.\(index)"
            if block.expandRatio != 1 {
                convolution("\(prefix).expand", [1, 1, block.inputChannels, block.expandedChannels])
            }
            shapes["\(prefix).depthwise.conv.weight"] = [block.kernelSize, block.kernelSize, block.expandedChannels]
            for name in batchNormNames("\(prefix).depthwise.bn") { shapes[name] = [block.expandedChannels] }
            convolution("\(prefix).project", [1, 1, block.expandedChannels, block.outputChannels])
        }
        convolution("head", [1, 1, blocks.last!.outputChannels, headChannels])
        shapes["classifier.weight"] = [headChannels, classCount]
        shapes["classifier.bias"] = [classCount]
        return shapes
    }
}
