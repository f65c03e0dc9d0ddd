import CoachNN

/// A convolution over time of [N, T, J, C] with weight [k, Cin, Cout], SAME padding and a
/// temporal stride (the one-GEMM `Variable.temporalConvolution` kernel); no bias (a batch norm follows).
final class TemporalConvolution: Module {
    let weight: Parameter
    let stride: Int

    init(kernelSize: Int, inputChannels: Int, outputChannels: Int, stride: Int = 1, generator: inout SeededGenerator) {
        weight = Parameter(Initializer.heNormal.make([kernelSize, inputChannels, outputChannels],
                                                     fanIn: kernelSize * inputChannels,
                                                     fanOut: kernelSize * outputChannels, generator: &generator))
        self.stride = stride
    }

    var localParameters: [(String, Parameter)] { [("weight", weight)] }

    func callAsFunction(_ x: Variable) -> Variable {
        Variable.temporalConvolution(x, filter: x.tape.variable(for: weight), stride: stride)
    }
}

/// A depthwise convolution over time of [N, T, J, C] with weight [k, C], SAME padding and a
/// temporal stride (`Variable.depthwiseTemporalConvolution`); no bias.
final class DepthwiseTemporalConvolution: Module {
    let weight: Parameter
    let stride: Int

    init(kernelSize: Int, channels: Int, stride: Int = 1, generator: inout SeededGenerator) {
        weight = Parameter(Initializer.heNormal.make([kernelSize, channels], fanIn: kernelSize, fanOut: kernelSize,
                                                     generator: &generator))
        self.stride = stride
    }

    var localParameters: [(String, Parameter)] { [("weight", weight)] }

    func callAsFunction(_ x: Variable) -> Variable {
        Variable.depthwiseTemporalConvolution(x, filter: x.tape.variable(for: weight), stride: stride)
    }
}
