import CoachNN

/// A convolution over time of [N, T, J, C] with weight [k, Cin, Cout], SAME padding and a
/// temporal stride (the one-GEMM `Variable.temporalConvolution` kernel); no bias (a batch norm follows).
public final class TemporalConvolution: Module {
    /// [k, C_in, C_out].
    public let weight: Parameter
    /// The temporal stride.
    public let stride: Int

    init(kernelSize: Int, inputChannels: Int, outputChannels: Int, stride: Int = 1, generator: inout SeededGenerator) {
        weight = Parameter(Initializer.heNormal.make([kernelSize, inputChannels, outputChannels],
                                                     fanIn: kernelSize * inputChannels,
                                                     fanOut: kernelSize * outputChannels, generator: &generator))
        self.stride = stride
    }

    public var localParameters: [(String, Parameter)] { [("weight", weight)] }

    public func callAsFunction(_ x: Variable) -> Variable {
        Variable.temporalConvolution(x, filter: x.tape.variable(for: weight), stride: stride)
    }
}

/// A depthwise convolution over time of [N, T, J, C] with weight [k, C], SAME padding and a
/// temporal stride (`Variable.depthwiseTemporalConvolution`); no bias.
public final class DepthwiseTemporalConvolution: Module {
    /// [k, C].
    public let weight: Parameter
    /// The temporal stride.
    public let stride: Int

    init(kernelSize: Int, channels: Int, stride: Int = 1, generator: inout SeededGenerator) {
        weight = Parameter(Initializer.heNormal.make([kernelSize, channels], fanIn: kernelSize, fanOut: kernelSize,
                                                     generator: &generator))
        self.stride = stride
    }

    public var localParameters: [(String, Parameter)] { [("weight", weight)] }

    public func callAsFunction(_ x: Variable) -> Variable {
        Variable.depthwiseTemporalConvolution(x, filter: x.tape.variable(for: weight), stride: stride)
    }
}
