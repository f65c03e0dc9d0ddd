import CoachModels
import Foundation

/// Builds an `ONNXGraph` node by node: each node's output value is named after the node,
/// weights become initializers under their own names, and shared scalars are added once.
public struct ONNXGraphBuilder {
    /// The graph built so far.
    public private(set) var graph: ONNXGraph
    private var scalarNames: [Float: String] = [:]

    /// An empty graph called `name` with `inputs` and `outputs`.
    public init(name: String, inputs: [ONNXValueInfo], outputs: [ONNXValueInfo]) {
        graph = ONNXGraph(name: name)
        graph.inputs = inputs
        graph.outputs = outputs
    }

    /// Adds a float initializer and returns its name.
    @discardableResult
    public mutating func constant(_ name: String, dimensions: [Int], values: [Float]) -> String {
        graph.initializers.append(ONNXTensor(name: name, dimensions: dimensions, floats: values))
        return name
    }

    /// A float scalar initializer (shape []) holding `value`, added on first use.
    public mutating func scalar(_ value: Float) -> String {
        if let name = scalarNames[value] { return name }
        let name = "constant.\(scalarNames.count)"
        scalarNames[value] = name
        return constant(name, dimensions: [], values: [value])
    }

    /// Adds a node of `operatorType` named `name` whose single output is also called `name`
    /// (or `output`, for a graph output) and returns the output's name.
    @discardableResult
    public mutating func node(_ operatorType: String, _ name: String, inputs: [String],
                              attributes: [ONNXAttribute] = [], output: String? = nil) -> String {
        let result = output ?? name
        graph.nodes.append(ONNXNode(operatorType, inputs: inputs, outputs: [result], name: name, attributes: attributes))
        return result
    }

    /// A 2-D convolution (`Conv`) of an NCHW value with a folded backbone convolution; see
    /// `convolution(_:input:height:width:inputChannels:kernelSize:stride:depthwise:filter:bias:outputChannels:)`.
    public mutating func convolution(_ name: String, input: String, height: Int, width: Int,
                                     inputChannels: Int, kernelSize: Int, stride: Int, depthwise: Bool,
                                     weights: EfficientNetLite0.FoldedConvolution) -> (output: String, height: Int, width: Int) {
        convolution(name, input: input, height: height, width: width, inputChannels: inputChannels, kernelSize: kernelSize,
                    stride: stride, depthwise: depthwise, filter: weights.filter, bias: weights.bias,
                    outputChannels: weights.outputChannels)
    }

    /// A 2-D convolution (`Conv`) of an NCHW value with a Coach filter and optional bias.
    ///
    /// `filter` is HWIO `[k, k, C_in, C_out]`, or `[k, k, C]` when `depthwise` (then one group
    /// per channel); it is stored as ONNX's OIHW `[C_out, C_in / group, k, k]`. A 1×1 `filter`
    /// is also a `Linear` layer's `[C_in, C_out]` weight. The padding is TensorFlow SAME for an
    /// input of `height × width` made explicit (the odd pixel bottom/right), as
    /// `ConvolutionGeometry` computes it. Returns the output and its size.
    public mutating func convolution(_ name: String, input: String, height: Int, width: Int,
                                     inputChannels: Int, kernelSize: Int, stride: Int, depthwise: Bool,
                                     filter source: [Float], bias: [Float]?,
                                     outputChannels: Int) -> (output: String, height: Int, width: Int) {
        let geometry = ConvolutionGeometry(inputShape: [1, height, width, inputChannels], kernelHeight: kernelSize,
                                           kernelWidth: kernelSize, strideHeight: stride, strideWidth: stride, padding: .same)
        let groupInputs = depthwise ? 1 : inputChannels
        var filter = [Float](repeating: 0, count: outputChannels * groupInputs * kernelSize * kernelSize)
        for output in 0..<outputChannels {
            for input in 0..<groupInputs {
                for y in 0..<kernelSize {
                    for x in 0..<kernelSize {
                        let index = depthwise ? (y * kernelSize + x) * outputChannels + output
                            : ((y * kernelSize + x) * inputChannels + input) * outputChannels + output
                        filter[((output * groupInputs + input) * kernelSize + y) * kernelSize + x] = source[index]
                    }
                }
            }
        }
        var inputs = [input, constant("\(name).weight", dimensions: [outputChannels, groupInputs, kernelSize, kernelSize], values: filter)]
        if let bias { inputs.append(constant("\(name).bias", dimensions: [outputChannels], values: bias)) }
        let output = node("Conv", name, inputs: inputs, attributes: [
            ONNXAttribute("group", .integer(Int64(depthwise ? inputChannels : 1))),
            ONNXAttribute("kernel_shape", .integers([Int64(kernelSize), Int64(kernelSize)])),
            ONNXAttribute("pads", .integers([geometry.padTop, geometry.padLeft, geometry.padBottom, geometry.padRight].map(Int64.init))),
            ONNXAttribute("strides", .integers([Int64(stride), Int64(stride)])),
        ])
        return (output, geometry.outputHeight, geometry.outputWidth)
    }

    /// An int64 initializer (shapes, axes, slice bounds) and its name.
    @discardableResult
    public mutating func integers(_ name: String, _ values: [Int64]) -> String {
        graph.initializers.append(ONNXTensor(name: name, dimensions: [values.count], integers: values))
        return name
    }

    /// ReLU6 as `Clip(x, 0, 6)` (opset 11+ takes the bounds as inputs).
    public mutating func relu6(_ name: String, input: String) -> String {
        let lower = scalar(0), upper = scalar(6)
        return node("Clip", name, inputs: [input, lower, upper])
    }
}
