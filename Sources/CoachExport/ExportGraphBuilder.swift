import CoachModels
import Foundation

/// What the exporters build networks from, whatever the format: named values (ONNX values, Core
/// ML blobs) made by convolutions, ReLU6 and sums, so Coach's networks are walked once for every
/// format.
public protocol ExportGraphBuilder {
    /// A 2-D convolution of a channels-first value with a Coach filter and optional bias.
    ///
    /// `filter` is HWIO `[k, k, C_in, C_out]`, or `[k, k, C]` when `depthwise` (then one group
    /// per channel); a 1×1 `filter` is also a `Linear` layer's `[C_in, C_out]` weight. The
    /// padding is TensorFlow SAME for an input of `height × width` (the odd pixel
    /// bottom/right). Returns the output and its size.
    mutating func convolution(_ name: String, input: String, height: Int, width: Int,
                              inputChannels: Int, kernelSize: Int, stride: Int, depthwise: Bool,
                              filter: [Float], bias: [Float]?, outputChannels: Int) -> (output: String, height: Int, width: Int)
    /// `min(max(x, 0), 6)`.
    mutating func relu6(_ name: String, input: String) -> String
    /// The elementwise sum of two values (NumPy broadcasting where the format allows it).
    mutating func add(_ name: String, _ first: String, _ second: String) -> String
    /// The elementwise product of two values (NumPy broadcasting).
    mutating func multiply(_ name: String, _ first: String, _ second: String) -> String
    /// A constant float value of `dimensions` (row-major `values`); returns its name.
    mutating func constant(_ name: String, dimensions: [Int], values: [Float]) -> String
    /// `x · scale[c] + shift[c]` for each channel c of a [1, C, H, W] value.
    mutating func scaleAndShift(_ name: String, input: String, scale: [Float], shift: [Float]) -> String
    /// `1 / (1 + e⁻ˣ)`.
    mutating func sigmoid(_ name: String, input: String) -> String
    /// `eˣ`.
    mutating func exp(_ name: String, input: String) -> String
    /// `min(max(x, minimum), maximum)`.
    mutating func clip(_ name: String, input: String, minimum: Float, maximum: Float) -> String
    /// Softmax along `axis`.
    mutating func softmax(_ name: String, input: String, axis: Int) -> String
    /// Nearest-neighbour ×2 upsampling of a [1, C, H, W] value.
    mutating func upsampleNearest2(_ name: String, input: String) -> String
    /// 2×2 average pooling at stride 2 of a [1, C, H, W] value.
    mutating func averagePool2(_ name: String, input: String) -> String
    /// The axes permuted: output axis i is input axis `permutation[i]`.
    mutating func transpose(_ name: String, input: String, permutation: [Int], output: String?) -> String
    /// The same values in `shape`.
    mutating func reshape(_ name: String, input: String, shape: [Int]) -> String
    /// Columns `[from, to)` of a [rows, columns] value.
    mutating func columns(_ name: String, input: String, from: Int, to: Int) -> String
    /// Values joined along `axis`.
    mutating func concatenate(_ name: String, inputs: [String], axis: Int, output: String?) -> String

    // The pose classifiers' operations (N-D values, NumPy broadcasting).

    /// The part `ranges` of each axis (nil: the whole axis).
    mutating func slice(_ name: String, _ input: String, _ ranges: [Range<Int>?]) -> String
    /// `alpha · x + beta`.
    mutating func affine(_ name: String, _ input: String, alpha: Float, beta: Float) -> String
    /// first − second.
    mutating func subtract(_ name: String, _ first: String, _ second: String) -> String
    /// first / second.
    mutating func divide(_ name: String, _ first: String, _ second: String) -> String
    /// The elementwise maximum.
    mutating func maximum(_ name: String, _ first: String, _ second: String) -> String
    /// 1 where `x > threshold`, else 0 (floats).
    mutating func greater(_ name: String, _ input: String, than threshold: Float) -> String
    /// `√x`.
    mutating func squareRoot(_ name: String, input: String) -> String
    /// `|x|`.
    mutating func absolute(_ name: String, input: String) -> String
    /// `max(x, 0)`.
    mutating func relu(_ name: String, input: String) -> String
    /// Sums along `axes`.
    mutating func reduceSum(_ name: String, input: String, axes: [Int], keepDimensions: Bool) -> String
    /// Means along `axes`.
    mutating func reduceMean(_ name: String, input: String, axes: [Int], keepDimensions: Bool) -> String
    /// Maxima along `axes`.
    mutating func reduceMax(_ name: String, input: String, axes: [Int], keepDimensions: Bool) -> String
    /// The last axis times `weights` [inputs, outputs] (row-major), plus `bias` [outputs].
    mutating func matMul(_ name: String, input: String, inputs: Int, outputs: Int, weights: [Float], bias: [Float]?) -> String
    /// NumPy's `matmul` of two values.
    mutating func matrixProduct(_ name: String, _ first: String, _ second: String) -> String
    /// A convolution over axis 2 of [1, C_in, T, J] (frames; `kernel × 1` windows): `weights`
    /// OIHW [C_out, C_in / groups, kernel, 1], taps `dilation` frames apart, `stride`, padded
    /// with `padding` frames before and after (nil: TensorFlow SAME for `frames` input frames).
    mutating func frameConvolution(_ name: String, input: String, frames: Int, outputChannels: Int, inputChannels: Int,
                                   groups: Int, kernel: Int, stride: Int, dilation: Int, padding: Int?,
                                   weights: [Float], bias: [Float]?) -> String
}

/// The maps of EfficientNet-Lite0 a graph uses, channels-first value names.
public struct EfficientNetLite0Maps {
    /// After block `EfficientNetLite0.stride16BlockIndex`: [1, 112, ⌈H/16⌉, ⌈W/16⌉].
    public var stride16: String
    /// The head's ReLU6 activations: [1, 1280, ⌈H/32⌉, ⌈W/32⌉].
    public var stride32: String
}

extension ExportGraphBuilder {
    /// A convolution with a folded backbone convolution's weights.
    public mutating func convolution(_ name: String, input: String, height: Int, width: Int,
                                     inputChannels: Int, kernelSize: Int, stride: Int, depthwise: Bool,
                                     weights: EfficientNetLite0.FoldedConvolution) -> (output: String, height: Int, width: Int) {
        convolution(name, input: input, height: height, width: width, inputChannels: inputChannels, kernelSize: kernelSize,
                    stride: stride, depthwise: depthwise, filter: weights.filter, bias: weights.bias,
                    outputChannels: weights.outputChannels)
    }

    /// Adds EfficientNet-Lite0 on a normalised channels-first `input` [1, 3, height, width],
    /// batch norm folded into its convolutions as Coach folds it; returns the stride-16 and
    /// stride-32 maps.
    public mutating func efficientNetLite0(_ network: EfficientNetLite0, input: String, height: Int, width: Int) -> EfficientNetLite0Maps {
        var (value, height, width) = convolution("backbone.stem", input: input, height: height, width: width,
                                                 inputChannels: 3, kernelSize: 3, stride: 2, depthwise: false,
                                                 weights: network.stem)
        value = relu6("backbone.stem.relu6", input: value)
        var stride16 = value
        for (index, block) in network.foldedBlocks.enumerated() {
            let prefix = "backbone.blocks.\(index)", specification = block.specification
            let blockInput = value
            if let expand = block.expand {
                value = convolution("\(prefix).expand", input: value, height: height, width: width,
                                    inputChannels: specification.inputChannels, kernelSize: 1, stride: 1,
                                    depthwise: false, weights: expand).output
                value = relu6("\(prefix).expand.relu6", input: value)
            }
            (value, height, width) = convolution("\(prefix).depthwise", input: value, height: height, width: width,
                                                 inputChannels: specification.expandedChannels,
                                                 kernelSize: specification.kernelSize, stride: specification.stride,
                                                 depthwise: true, weights: block.depthwise)
            value = relu6("\(prefix).depthwise.relu6", input: value)
            value = convolution("\(prefix).project", input: value, height: height, width: width,
                                inputChannels: specification.expandedChannels, kernelSize: 1, stride: 1,
                                depthwise: false, weights: block.project).output
            if specification.hasSkipConnection {
                value = add("\(prefix).residual", value, blockInput)
            }
            if index == EfficientNetLite0.stride16BlockIndex { stride16 = value }
        }
        value = convolution("backbone.head", input: value, height: height, width: width,
                            inputChannels: EfficientNetLite0.blocks.last!.outputChannels, kernelSize: 1, stride: 1,
                            depthwise: false, weights: network.head).output
        return EfficientNetLite0Maps(stride16: stride16, stride32: relu6("backbone.head.relu6", input: value))
    }
}
