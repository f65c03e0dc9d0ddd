/// Batch normalisation over the last (channel) axis, optionally followed by a fused ReLU or swish.
///
/// In training mode it normalises with the batch's statistics and updates the running
/// mean and variance (exponential average with `momentum`; unbiased variance, as PyTorch
/// does); in inference mode it uses the running statistics. Runs as one fused op
/// (`Variable.batchNormalized`).
public final class BatchNorm: Module {
    /// γ [C].
    public let scale: Parameter
    /// β [C].
    public let offset: Parameter
    /// Running mean [C] (a buffer).
    public let runningMean: Parameter
    /// Running (unbiased) variance [C] (a buffer).
    public let runningVariance: Parameter
    public let momentum: Float
    public let epsilon: Float
    /// The activation applied to the output in the same pass.
    public let activation: NormalizationActivation

    /// A batch norm over `featureCount` channels followed by `activation` (or a ReLU when `relu`).
    public init(featureCount: Int, relu: Bool = false, activation: NormalizationActivation? = nil,
                momentum: Float = 0.1, epsilon: Float = 1e-3) {
        scale = Parameter(Tensor.ones([featureCount]))
        offset = Parameter(Tensor.zeros([featureCount]))
        runningMean = Parameter(Tensor.zeros([featureCount]), kind: .buffer)
        runningVariance = Parameter(Tensor.ones([featureCount]), kind: .buffer)
        self.momentum = momentum
        self.epsilon = epsilon
        self.activation = activation ?? (relu ? .relu : .none)
    }

    public var localParameters: [(String, Parameter)] {
        [("scale", scale), ("offset", offset), ("runningMean", runningMean), ("runningVariance", runningVariance)]
    }

    public func callAsFunction(_ x: Variable) -> Variable {
        Variable.batchNormalized(x, scale: x.tape.variable(for: scale), offset: x.tape.variable(for: offset),
                                 runningMean: runningMean, runningVariance: runningVariance, momentum: momentum,
                                 epsilon: epsilon, activation: activation)
    }
}

/// Inverted dropout: in training, zeroes each element with probability `rate` and scales
/// the rest by 1/(1 − rate); identity in inference. Masks come from the tape's generator.
public final class Dropout: Module {
    public let rate: Float

    public init(rate: Float) {
        precondition(rate >= 0 && rate < 1, "dropout rate must be in [0, 1)")
        self.rate = rate
    }

    public func callAsFunction(_ x: Variable) -> Variable {
        guard x.tape.mode == .training, rate > 0 else { return x }
        let keep = 1 - rate
        // The mask draws one uniform per element, in order, from a local copy of the tape's generator.
        var generator = x.tape.generator
        let threshold = Dropout.threshold(keeping: keep), scale = 1 / keep
        let mask = Tensor(shape: x.shape) { p in
            guard let base = p.baseAddress else { return }
            // A local copy stays in registers (the captured one is loaded and stored at every draw),
            // and the mask is chosen without a branch, which would be mispredicted at every dropped
            // element: the borrow of draw − bound is 1 exactly when the draw is below the bound.
            var local = generator
            let scaleBits = scale.bitPattern
            for i in 0..<p.count {
                let kept = (local.next() >> 40 &- threshold) >> 63
                base[i] = Float(bitPattern: scaleBits & UInt32(truncatingIfNeeded: 0 &- kept))
            }
            generator = local
        }
        x.tape.generator = generator
        return x * mask
    }

    /// The bound t with `next() >> 40 < t` exactly when `nextUniform() < keep`: that compares
    /// u · 2⁻²⁴ with keep for the 24-bit integer u = next() >> 40, which is u < keep · 2²⁴ (both
    /// sides exact in Float), so the mask is the same without converting each draw to a float.
    public static func threshold(keeping keep: Float) -> UInt64 { UInt64((keep * 0x1p24).rounded(.up)) }
}

/// Layer normalisation over the last axis with learned scale and offset.
public final class LayerNorm: Module {
    public let scale: Parameter
    public let offset: Parameter
    public let epsilon: Float

    public init(featureCount: Int, epsilon: Float = 1e-5) {
        scale = Parameter(Tensor.ones([featureCount]))
        offset = Parameter(Tensor.zeros([featureCount]))
        self.epsilon = epsilon
    }

    public var localParameters: [(String, Parameter)] { [("scale", scale), ("offset", offset)] }

    public func callAsFunction(_ x: Variable) -> Variable {
        let mean = x.mean(alongAxes: [-1], keepingDimensions: true)
        let centred = x - mean
        let variance = centred.squared().mean(alongAxes: [-1], keepingDimensions: true)
        return centred / (variance + epsilon).sqrt() * x.tape.variable(for: scale) + x.tape.variable(for: offset)
    }
}
