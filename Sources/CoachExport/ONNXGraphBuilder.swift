import CoachModels
import Foundation

/// Builds an `ONNXGraph` node by node: each node's output value is named after the node,
/// weights become initializers under their own names, and shared scalars are added once.
public struct ONNXGraphBuilder: ExportGraphBuilder {
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

    /// A 2-D convolution (`Conv`) of an NCHW value (see `ExportGraphBuilder`): the filter is
    /// stored as ONNX's OIHW `[C_out, C_in / group, k, k]`, depthwise convolutions as
    /// `group = channels`, and the SAME padding is made explicit in `pads`, as
    /// `ConvolutionGeometry` computes it.
    public mutating func convolution(_ name: String, input: String, height: Int, width: Int,
                                     inputChannels: Int, kernelSize: Int, stride: Int, depthwise: Bool,
                                     filter source: [Float], bias: [Float]?,
                                     outputChannels: Int) -> (output: String, height: Int, width: Int) {
        let geometry = ConvolutionGeometry(inputShape: [1, height, width, inputChannels], kernelHeight: kernelSize,
                                           kernelWidth: kernelSize, strideHeight: stride, strideWidth: stride, padding: .same)
        let groupInputs = depthwise ? 1 : inputChannels
        let filter = ExportedFilter.oihw(source, kernelSize: kernelSize, inputChannels: inputChannels,
                                         outputChannels: outputChannels, depthwise: depthwise)
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

    /// `Add` of two values.
    public mutating func add(_ name: String, _ first: String, _ second: String) -> String {
        node("Add", name, inputs: [first, second])
    }

    /// `Mul` of two values.
    public mutating func multiply(_ name: String, _ first: String, _ second: String) -> String {
        node("Mul", name, inputs: [first, second])
    }

    /// `Mul` and `Add` with [1, C, 1, 1] initializers.
    public mutating func scaleAndShift(_ name: String, input: String, scale: [Float], shift: [Float]) -> String {
        let scaled = multiply("\(name).scale", input, constant("\(name).a", dimensions: [1, scale.count, 1, 1], values: scale))
        return add(name, scaled, constant("\(name).b", dimensions: [1, shift.count, 1, 1], values: shift))
    }

    /// `Sigmoid`.
    public mutating func sigmoid(_ name: String, input: String) -> String {
        node("Sigmoid", name, inputs: [input])
    }

    /// `Exp`.
    public mutating func exp(_ name: String, input: String) -> String {
        node("Exp", name, inputs: [input])
    }

    /// `Clip` with scalar bounds.
    public mutating func clip(_ name: String, input: String, minimum: Float, maximum: Float) -> String {
        let lower = scalar(minimum), upper = scalar(maximum)
        return node("Clip", name, inputs: [input, lower, upper])
    }

    /// `Softmax`.
    public mutating func softmax(_ name: String, input: String, axis: Int) -> String {
        node("Softmax", name, inputs: [input], attributes: [ONNXAttribute("axis", .integer(Int64(axis)))])
    }

    /// `Resize`, nearest (floor, asymmetric coordinates), scales [1, 1, 2, 2].
    public mutating func upsampleNearest2(_ name: String, input: String) -> String {
        node("Resize", name, inputs: [input, "", constant("\(name).scales", dimensions: [4], values: [1, 1, 2, 2])],
             attributes: [ONNXAttribute("coordinate_transformation_mode", .string("asymmetric")),
                          ONNXAttribute("mode", .string("nearest")),
                          ONNXAttribute("nearest_mode", .string("floor"))])
    }

    /// `AveragePool` 2×2, stride 2.
    public mutating func averagePool2(_ name: String, input: String) -> String {
        node("AveragePool", name, inputs: [input],
             attributes: [ONNXAttribute("kernel_shape", .integers([2, 2])), ONNXAttribute("strides", .integers([2, 2]))])
    }

    /// `Transpose`.
    public mutating func transpose(_ name: String, input: String, permutation: [Int], output: String?) -> String {
        node("Transpose", name, inputs: [input], attributes: [ONNXAttribute("perm", .integers(permutation.map(Int64.init)))],
             output: output)
    }

    /// `Reshape` with an int64 shape initializer.
    public mutating func reshape(_ name: String, input: String, shape: [Int]) -> String {
        node("Reshape", name, inputs: [input, integers("\(name).shape", shape.map(Int64.init))])
    }

    /// `Slice` along axis 1.
    public mutating func columns(_ name: String, input: String, from: Int, to: Int) -> String {
        node("Slice", name, inputs: [input, integers("\(name).starts", [Int64(from)]), integers("\(name).ends", [Int64(to)]),
                                     integers("\(name).axes", [1])])
    }

    /// `Concat`.
    public mutating func concatenate(_ name: String, inputs: [String], axis: Int, output: String?) -> String {
        node("Concat", name, inputs: inputs, attributes: [ONNXAttribute("axis", .integer(Int64(axis)))], output: output)
    }

    /// ReLU6 as `Clip(x, 0, 6)` (opset 11+ takes the bounds as inputs).
    public mutating func relu6(_ name: String, input: String) -> String {
        let lower = scalar(0), upper = scalar(6)
        return node("Clip", name, inputs: [input, lower, upper])
    }
}
