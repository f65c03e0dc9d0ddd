import CoachNN

/// Batch normalisation written with primitive differentiable ops (mean, subtraction,
/// square, sqrt, division): an independent reference for the fused `Variable.batchNormalized`.
public final class CompositeBatchNorm {
    public let scale: Parameter
    public let offset: Parameter
    public let runningMean: Parameter
    public let runningVariance: Parameter
    let momentum: Float, epsilon: Float

    public init(featureCount: Int, momentum: Float = 0.1, epsilon: Float = 1e-3) {
        scale = Parameter(Tensor.ones([featureCount]))
        offset = Parameter(Tensor.zeros([featureCount]))
        runningMean = Parameter(Tensor.zeros([featureCount]), kind: .buffer)
        runningVariance = Parameter(Tensor.ones([featureCount]), kind: .buffer)
        self.momentum = momentum
        self.epsilon = epsilon
    }

    public func callAsFunction(_ x: Variable) -> Variable {
        let tape = x.tape
        let gamma = tape.variable(for: scale), beta = tape.variable(for: offset)
        let axes = Array(0..<(x.rank - 1))
        if tape.mode == .inference {
            let inv = (runningVariance.value + epsilon).sqrt().map { 1 / $0 }
            return (x * inv + (-(runningMean.value * inv))) * gamma + beta
        }
        let mean = x.mean(alongAxes: axes)
        let centred = x - mean
        let variance = centred.squared().mean(alongAxes: axes)
        let n = Float(x.value.count / max(x.shape.last ?? 1, 1))
        runningMean.value = runningMean.value * (1 - momentum) + mean.value * momentum
        runningVariance.value = runningVariance.value * (1 - momentum) + variance.value * (n / max(n - 1, 1)) * momentum
        return centred / (variance + epsilon).sqrt() * gamma + beta
    }
}
