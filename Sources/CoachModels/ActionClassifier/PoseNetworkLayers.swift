import CoachNN

/// Batch normalisation over the last axis with an optional fused ReLU (the fused
/// `Variable.batchNormalized` kernel); parameters as `CoachNN.BatchNorm` names them.
final class FusedBatchNorm: Module {
    let scale: Parameter
    let offset: Parameter
    let runningMean: Parameter
    let runningVariance: Parameter
    let momentum: Float
    let epsilon: Float
    let relu: Bool

    init(featureCount: Int, relu: Bool = false, momentum: Float = 0.1, epsilon: Float = 1e-3) {
        scale = Parameter(Tensor.ones([featureCount]))
        offset = Parameter(Tensor.zeros([featureCount]))
        runningMean = Parameter(Tensor.zeros([featureCount]), kind: .buffer)
        runningVariance = Parameter(Tensor.ones([featureCount]), kind: .buffer)
        self.momentum = momentum
        self.epsilon = epsilon
        self.relu = relu
    }

    var localParameters: [(String, Parameter)] {
        [("scale", scale), ("offset", offset), ("runningMean", runningMean), ("runningVariance", runningVariance)]
    }

    func callAsFunction(_ x: Variable) -> Variable {
        Variable.batchNormalized(x, scale: x.tape.variable(for: scale), offset: x.tape.variable(for: offset),
                                 runningMean: runningMean, runningVariance: runningVariance, momentum: momentum,
                                 epsilon: epsilon, relu: relu)
    }
}

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
