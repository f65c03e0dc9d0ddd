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

    /// `Slice` of the axes with a range.
    public mutating func slice(_ name: String, _ input: String, _ ranges: [Range<Int>?]) -> String {
        let axes = ranges.indices.filter { ranges[$0] != nil }
        return node("Slice", name, inputs: [input, integers("\(name).starts", axes.map { Int64(ranges[$0]!.lowerBound) }),
                                            integers("\(name).ends", axes.map { Int64(ranges[$0]!.upperBound) }),
                                            integers("\(name).axes", axes.map(Int64.init))])
    }

    /// `Mul` and `Add` with scalars.
    public mutating func affine(_ name: String, _ input: String, alpha: Float, beta: Float) -> String {
        let scaled = node("Mul", "\(name).scale", inputs: [input, scalar(alpha)])
        return node("Add", name, inputs: [scaled, scalar(beta)])
    }

    /// `Sub`.
    public mutating func subtract(_ name: String, _ first: String, _ second: String) -> String {
        node("Sub", name, inputs: [first, second])
    }

    /// `Div`.
    public mutating func divide(_ name: String, _ first: String, _ second: String) -> String {
        node("Div", name, inputs: [first, second])
    }

    /// `Max`.
    public mutating func maximum(_ name: String, _ first: String, _ second: String) -> String {
        node("Max", name, inputs: [first, second])
    }

    /// `Greater` than a scalar, then `Cast` to float.
    public mutating func greater(_ name: String, _ input: String, than threshold: Float) -> String {
        let flags = node("Greater", "\(name).bool", inputs: [input, scalar(threshold)])
        return node("Cast", name, inputs: [flags], attributes: [ONNXAttribute("to", .integer(ONNXElementType.float.rawValue))])
    }

    /// `Sqrt`.
    public mutating func squareRoot(_ name: String, input: String) -> String {
        node("Sqrt", name, inputs: [input])
    }

    /// `Abs`.
    public mutating func absolute(_ name: String, input: String) -> String {
        node("Abs", name, inputs: [input])
    }

    /// `Relu`.
    public mutating func relu(_ name: String, input: String) -> String {
        node("Relu", name, inputs: [input])
    }

    /// `ReduceSum` (opset 13: the axes are an input).
    public mutating func reduceSum(_ name: String, input: String, axes: [Int], keepDimensions: Bool) -> String {
        node("ReduceSum", name, inputs: [input, integers("\(name).axes", axes.map(Int64.init))],
             attributes: [ONNXAttribute("keepdims", .integer(keepDimensions ? 1 : 0))])
    }

    /// `ReduceMean`.
    public mutating func reduceMean(_ name: String, input: String, axes: [Int], keepDimensions: Bool) -> String {
        node("ReduceMean", name, inputs: [input], attributes: [ONNXAttribute("axes", .integers(axes.map(Int64.init))),
                                                               ONNXAttribute("keepdims", .integer(keepDimensions ? 1 : 0))])
    }

    /// `ReduceMax`.
    public mutating func reduceMax(_ name: String, input: String, axes: [Int], keepDimensions: Bool) -> String {
        node("ReduceMax", name, inputs: [input], attributes: [ONNXAttribute("axes", .integers(axes.map(Int64.init))),
                                                              ONNXAttribute("keepdims", .integer(keepDimensions ? 1 : 0))])
    }

    /// `MatMul` with a weight initializer, then `Add` of the bias.
    public mutating func matMul(_ name: String, input: String, inputs: Int, outputs: Int, weights: [Float], bias: [Float]?) -> String {
        let product = node("MatMul", bias == nil ? name : "\(name).product",
                           inputs: [input, constant("\(name).weight", dimensions: [inputs, outputs], values: weights)])
        guard let bias else { return product }
        return node("Add", name, inputs: [product, constant("\(name).bias", dimensions: [outputs], values: bias)])
    }

    /// `MatMul` of two values.
    public mutating func matrixProduct(_ name: String, _ first: String, _ second: String) -> String {
        node("MatMul", name, inputs: [first, second])
    }

    /// `Conv` with a `kernel × 1` window and explicit `pads` (TensorFlow SAME computed for `frames`).
    public mutating func frameConvolution(_ name: String, input: String, frames: Int, outputChannels: Int, inputChannels: Int,
                                          groups: Int, kernel: Int, stride: Int, dilation: Int, padding: Int?,
                                          weights: [Float], bias: [Float]?) -> String {
        var before = padding ?? 0, after = padding ?? 0
        if padding == nil {
            let outputFrames = (frames + stride - 1) / stride
            let total = max((outputFrames - 1) * stride + (kernel - 1) * dilation + 1 - frames, 0)
            before = total / 2
            after = total - before
        }
        var inputs = [input, constant("\(name).weight", dimensions: [outputChannels, inputChannels / groups, kernel, 1], values: weights)]
        if let bias { inputs.append(constant("\(name).bias", dimensions: [outputChannels], values: bias)) }
        return node("Conv", name, inputs: inputs, attributes: [
            ONNXAttribute("dilations", .integers([Int64(dilation), 1])),
            ONNXAttribute("group", .integer(Int64(groups))),
            ONNXAttribute("kernel_shape", .integers([Int64(kernel), 1])),
            ONNXAttribute("pads", .integers([Int64(before), 0, Int64(after), 0])),
            ONNXAttribute("strides", .integers([Int64(stride), 1])),
        ])
    }
}
