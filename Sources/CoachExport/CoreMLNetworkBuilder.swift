import CoachModels
import Foundation

/// Builds a `CoreMLNeuralNetwork` layer by layer: each layer's single output blob is named after
/// the layer (or `output`, for a model output).
///
/// Two kinds of network: rank-5 blobs (`RANK5_ARRAY_MAPPING`, `RANK5_IMAGE_MAPPING`: an image or
/// a [C, H, W] value is read as channels × height × width), and, with `ndArrays`, N-D arrays
/// (`EXACT_ARRAY_MAPPING`, `RANK4_IMAGE_MAPPING`: an image is [1, C, H, W]; sums and products
/// broadcast as NumPy's do).
public struct CoreMLNetworkBuilder: ExportGraphBuilder {
    /// The network built so far.
    public private(set) var network = CoreMLNeuralNetwork()
    /// Whether blobs are N-D arrays.
    public let ndArrays: Bool

    /// An empty network, of N-D arrays when `ndArrays`.
    public init(ndArrays: Bool = false) {
        self.ndArrays = ndArrays
        network.exactArrayMapping = ndArrays
        network.rank4ImageMapping = ndArrays
    }

    /// Adds a layer named `name` reading `inputs`; returns its output blob's name.
    @discardableResult
    public mutating func layer(_ name: String, inputs: [String], _ kind: CoreMLLayer.Kind, output: String? = nil) -> String {
        let result = output ?? name
        network.layers.append(CoreMLLayer(name, inputs: inputs, outputs: [result], kind))
        return result
    }

    /// Scales an image input's 0…255 channels to `(x − mean) / standardDeviation` before the
    /// first layer (`NeuralNetworkImageScaler`).
    public mutating func scaleImage(_ input: String, mean: Float, standardDeviation: Float) {
        let bias = -mean / standardDeviation
        network.imageScalers.append((input: input, scale: 1 / standardDeviation, redBias: bias, greenBias: bias, blueBias: bias))
    }

    /// A convolution (see `ExportGraphBuilder`): OIHW weights, `nGroups = channels` when
    /// depthwise, SAME padding as Core ML's `same` (BOTTOM_RIGHT_HEAVY, TensorFlow's rule).
    public mutating func convolution(_ name: String, input: String, height: Int, width: Int,
                                     inputChannels: Int, kernelSize: Int, stride: Int, depthwise: Bool,
                                     filter: [Float], bias: [Float]?, outputChannels: Int) -> (output: String, height: Int, width: Int) {
        let weights = ExportedFilter.oihw(filter, kernelSize: kernelSize, inputChannels: inputChannels,
                                          outputChannels: outputChannels, depthwise: depthwise)
        let output = layer(name, inputs: [input], .convolution(
            outputChannels: outputChannels, kernelChannels: depthwise ? 1 : inputChannels, groups: depthwise ? inputChannels : 1,
            kernel: (kernelSize, kernelSize), stride: (stride, stride), padding: .same, weights: weights, bias: bias))
        return (output, (height + stride - 1) / stride, (width + stride - 1) / stride)
    }

    /// ReLU6 as `clip` to [0, 6].
    public mutating func relu6(_ name: String, input: String) -> String {
        layer(name, inputs: [input], .clip(minimum: 0, maximum: 6))
    }

    /// `add` of two blobs of one shape, or `addBroadcastable` in an N-D network.
    public mutating func add(_ name: String, _ first: String, _ second: String) -> String {
        layer(name, inputs: [first, second], ndArrays ? .addBroadcastable : .add)
    }

    /// `multiplyBroadcastable` (N-D networks).
    public mutating func multiply(_ name: String, _ first: String, _ second: String) -> String {
        layer(name, inputs: [first, second], .multiplyBroadcastable)
    }

    /// A `loadConstantND` layer.
    public mutating func constant(_ name: String, dimensions: [Int], values: [Float]) -> String {
        layer(name, inputs: [], .loadConstantND(shape: dimensions, values: values))
    }

    /// Two broadcast constants [1, C, 1, 1]: a product, then a sum.
    public mutating func scaleAndShift(_ name: String, input: String, scale: [Float], shift: [Float]) -> String {
        let scaled = multiply("\(name).scale", input, constant("\(name).a", dimensions: [1, scale.count, 1, 1], values: scale))
        return add(name, scaled, constant("\(name).b", dimensions: [1, shift.count, 1, 1], values: shift))
    }

    /// `activation` sigmoid.
    public mutating func sigmoid(_ name: String, input: String) -> String {
        layer(name, inputs: [input], .activation(.sigmoid))
    }

    /// `unary` EXP.
    public mutating func exp(_ name: String, input: String) -> String {
        layer(name, inputs: [input], .exp)
    }

    /// `clip`.
    public mutating func clip(_ name: String, input: String, minimum: Float, maximum: Float) -> String {
        layer(name, inputs: [input], .clip(minimum: minimum, maximum: maximum))
    }

    /// `softmaxND`.
    public mutating func softmax(_ name: String, input: String, axis: Int) -> String {
        layer(name, inputs: [input], .softmaxND(axis: axis))
    }

    /// `upsample`, nearest neighbour.
    public mutating func upsampleNearest2(_ name: String, input: String) -> String {
        layer(name, inputs: [input], .upsampleNearest(factor: 2))
    }

    /// `pooling`, AVERAGE 2×2 at stride 2, valid.
    public mutating func averagePool2(_ name: String, input: String) -> String {
        layer(name, inputs: [input], .averagePooling(size: 2))
    }

    /// `transpose`.
    public mutating func transpose(_ name: String, input: String, permutation: [Int], output: String?) -> String {
        layer(name, inputs: [input], .transpose(axes: permutation), output: output)
    }

    /// `reshapeStatic`.
    public mutating func reshape(_ name: String, input: String, shape: [Int]) -> String {
        layer(name, inputs: [input], .reshapeStatic(shape: shape))
    }

    /// `sliceStatic` of every row.
    public mutating func columns(_ name: String, input: String, from: Int, to: Int) -> String {
        layer(name, inputs: [input], .sliceStatic([nil, from..<to]))
    }

    /// `concatND`.
    public mutating func concatenate(_ name: String, inputs: [String], axis: Int, output: String?) -> String {
        layer(name, inputs: inputs, .concatND(axis: axis), output: output)
    }

    /// `sliceStatic`.
    public mutating func slice(_ name: String, _ input: String, _ ranges: [Range<Int>?]) -> String {
        layer(name, inputs: [input], .sliceStatic(ranges))
    }

    /// `activation` linear.
    public mutating func affine(_ name: String, _ input: String, alpha: Float, beta: Float) -> String {
        layer(name, inputs: [input], .activation(.linear(alpha: alpha, beta: beta)))
    }

    /// `subtractBroadcastable`.
    public mutating func subtract(_ name: String, _ first: String, _ second: String) -> String {
        layer(name, inputs: [first, second], .subtractBroadcastable)
    }

    /// `divideBroadcastable`.
    public mutating func divide(_ name: String, _ first: String, _ second: String) -> String {
        layer(name, inputs: [first, second], .divideBroadcastable)
    }

    /// `maxBroadcastable`.
    public mutating func maximum(_ name: String, _ first: String, _ second: String) -> String {
        layer(name, inputs: [first, second], .maxBroadcastable)
    }

    /// `greaterThan` with `alpha`.
    public mutating func greater(_ name: String, _ input: String, than threshold: Float) -> String {
        layer(name, inputs: [input], .greaterThan(alpha: threshold))
    }

    /// `unary` SQRT.
    public mutating func squareRoot(_ name: String, input: String) -> String {
        layer(name, inputs: [input], .squareRoot)
    }

    /// `unary` ABS.
    public mutating func absolute(_ name: String, input: String) -> String {
        layer(name, inputs: [input], .absolute)
    }

    /// `activation` ReLU.
    public mutating func relu(_ name: String, input: String) -> String {
        layer(name, inputs: [input], .activation(.relu))
    }

    /// `reduceSum`.
    public mutating func reduceSum(_ name: String, input: String, axes: [Int], keepDimensions: Bool) -> String {
        layer(name, inputs: [input], .reduceSum(axes: axes, keepDimensions: keepDimensions))
    }

    /// `reduceMean`.
    public mutating func reduceMean(_ name: String, input: String, axes: [Int], keepDimensions: Bool) -> String {
        layer(name, inputs: [input], .reduceMean(axes: axes, keepDimensions: keepDimensions))
    }

    /// `reduceMax`.
    public mutating func reduceMax(_ name: String, input: String, axes: [Int], keepDimensions: Bool) -> String {
        layer(name, inputs: [input], .reduceMax(axes: axes, keepDimensions: keepDimensions))
    }

    /// `batchedMatmul` with weights.
    public mutating func matMul(_ name: String, input: String, inputs: Int, outputs: Int, weights: [Float], bias: [Float]?) -> String {
        layer(name, inputs: [input], .batchedMatMul(inputs: inputs, outputs: outputs, weights: weights, bias: bias))
    }

    /// `batchedMatmul` of two inputs.
    public mutating func matrixProduct(_ name: String, _ first: String, _ second: String) -> String {
        layer(name, inputs: [first, second], .matrixProduct)
    }

    /// `convolution` with a `kernel × 1` window: `same` padding (BOTTOM_RIGHT_HEAVY, TensorFlow's
    /// rule) or `valid` with explicit amounts.
    public mutating func frameConvolution(_ name: String, input: String, frames: Int, outputChannels: Int, inputChannels: Int,
                                          groups: Int, kernel: Int, stride: Int, dilation: Int, padding: Int?,
                                          weights: [Float], bias: [Float]?) -> String {
        layer(name, inputs: [input], .convolution(
            outputChannels: outputChannels, kernelChannels: inputChannels / groups, groups: groups, kernel: (kernel, 1),
            stride: (stride, 1), padding: padding.map { .valid(top: $0, bottom: $0, left: 0, right: 0) } ?? .same,
            weights: weights, bias: bias, dilationHeight: dilation))
    }
}
