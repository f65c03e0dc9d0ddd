/// A fully connected layer: y = x·W + b, W [inputSize, outputSize], over the last axis.
public final class Linear: Module {
    /// [inputSize, outputSize].
    public let weight: Parameter
    /// [outputSize], or nil without bias.
    public let bias: Parameter?

    /// A layer with weights drawn from `generator`.
    public init(inputSize: Int, outputSize: Int, useBias: Bool = true,
                initializer: Initializer = .glorotUniform, generator: inout SeededGenerator) {
        weight = Parameter(initializer.make([inputSize, outputSize], fanIn: inputSize, fanOut: outputSize,
                                            generator: &generator))
        bias = useBias ? Parameter(Tensor.zeros([outputSize])) : nil
    }

    public var localParameters: [(String, Parameter)] {
        [("weight", weight)] + (bias.map { [("bias", $0)] } ?? [])
    }

    /// Applies the layer to [..., inputSize].
    public func callAsFunction(_ x: Variable) -> Variable {
        let tape = x.tape
        let inSize = weight.value.shape[0]
        precondition(x.shape.last == inSize, "Linear expects last axis \(inSize), got \(x.shape)")
        let lead = Array(x.shape.dropLast())
        var y = Variable.matmul(x.reshaped(to: [-1, inSize]), tape.variable(for: weight))
        if let bias { y = y + tape.variable(for: bias) }
        return y.reshaped(to: lead + [weight.value.shape[1]])
    }
}
