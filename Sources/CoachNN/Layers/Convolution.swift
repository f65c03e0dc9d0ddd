/// A 2-D convolution over NHWC inputs with an HWIO filter [kh, kw, Cin, Cout].
public final class Conv2D: Module {
    public let weight: Parameter
    public let bias: Parameter?
    public let stride: (Int, Int)
    public let padding: Padding

    /// A convolution with He-initialised weights.
    public init(kernelSize: (Int, Int), inputChannels: Int, outputChannels: Int,
                stride: (Int, Int) = (1, 1), padding: Padding = .same, useBias: Bool = true,
                initializer: Initializer = .heNormal, generator: inout SeededGenerator) {
        let fanIn = kernelSize.0 * kernelSize.1 * inputChannels
        weight = Parameter(initializer.make([kernelSize.0, kernelSize.1, inputChannels, outputChannels],
                                            fanIn: fanIn, fanOut: kernelSize.0 * kernelSize.1 * outputChannels,
                                            generator: &generator))
        bias = useBias ? Parameter(Tensor.zeros([outputChannels])) : nil
        self.stride = stride
        self.padding = padding
    }

    public var localParameters: [(String, Parameter)] {
        [("weight", weight)] + (bias.map { [("bias", $0)] } ?? [])
    }

    public func callAsFunction(_ x: Variable) -> Variable {
        let y = Variable.conv2D(x, filter: x.tape.variable(for: weight), stride: stride, padding: padding)
        return bias.map { y + x.tape.variable(for: $0) } ?? y
    }
}

/// A depthwise 2-D convolution (one kh×kw filter per channel), filter [kh, kw, C].
public final class DepthwiseConv2D: Module {
    public let weight: Parameter
    public let bias: Parameter?
    public let stride: (Int, Int)
    public let padding: Padding

    /// A depthwise convolution with He-initialised weights.
    public init(kernelSize: (Int, Int), channels: Int, stride: (Int, Int) = (1, 1),
                padding: Padding = .same, useBias: Bool = true,
                initializer: Initializer = .heNormal, generator: inout SeededGenerator) {
        let fan = kernelSize.0 * kernelSize.1
        weight = Parameter(initializer.make([kernelSize.0, kernelSize.1, channels], fanIn: fan, fanOut: fan,
                                            generator: &generator))
        bias = useBias ? Parameter(Tensor.zeros([channels])) : nil
        self.stride = stride
        self.padding = padding
    }

    public var localParameters: [(String, Parameter)] {
        [("weight", weight)] + (bias.map { [("bias", $0)] } ?? [])
    }

    public func callAsFunction(_ x: Variable) -> Variable {
        let y = Variable.depthwiseConv2D(x, filter: x.tape.variable(for: weight), stride: stride, padding: padding)
        return bias.map { y + x.tape.variable(for: $0) } ?? y
    }
}

/// A 1-D convolution over time: [N, T, Cin] → [N, T', Cout], filter [k, Cin, Cout].
public final class Conv1D: Module {
    public let weight: Parameter
    public let bias: Parameter?
    public let stride: Int
    public let padding: Padding

    /// A temporal convolution with He-initialised weights.
    public init(kernelSize: Int, inputChannels: Int, outputChannels: Int, stride: Int = 1,
                padding: Padding = .same, useBias: Bool = true,
                initializer: Initializer = .heNormal, generator: inout SeededGenerator) {
        weight = Parameter(initializer.make([kernelSize, inputChannels, outputChannels],
                                            fanIn: kernelSize * inputChannels, fanOut: kernelSize * outputChannels,
                                            generator: &generator))
        bias = useBias ? Parameter(Tensor.zeros([outputChannels])) : nil
        self.stride = stride
        self.padding = padding
    }

    public var localParameters: [(String, Parameter)] {
        [("weight", weight)] + (bias.map { [("bias", $0)] } ?? [])
    }

    public func callAsFunction(_ x: Variable) -> Variable {
        let y = Variable.conv1D(x, filter: x.tape.variable(for: weight), stride: stride, padding: padding)
        return bias.map { y + x.tape.variable(for: $0) } ?? y
    }
}
