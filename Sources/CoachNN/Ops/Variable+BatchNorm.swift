import Foundation

/// The activation a fused batch norm applies to its output.
public enum NormalizationActivation: Sendable {
    case none, relu
    /// x·σ(x) (SiLU).
    case swish
}

/// Batch normalisation as one fused op (instead of a dozen elementwise ones): the forward
/// normalises and applies scale, offset and an optional activation; the backward sits
/// beside it and has a numerical gradient check.

extension Variable {
    /// Batch normalisation over every axis but the last (channels), then `activation`.
    ///
    /// In training mode it normalises with the batch's mean and (biased) variance and moves the
    /// running statistics towards the batch's (`momentum`; unbiased variance, as PyTorch and
    /// `CoachNN.BatchNorm` do); in inference mode it uses the running statistics.
    public static func batchNormalized(_ x: Variable, scale: Variable, offset: Variable, runningMean: Parameter,
                                       runningVariance: Parameter, momentum: Float, epsilon: Float,
                                       activation: NormalizationActivation = .none) -> Variable {
        let relu = activation == .relu
        let c = x.shape[x.rank - 1]
        let rows = x.value.count / Swift.max(c, 1)
        let input = x.value, gamma = scale.value.scalars, beta = offset.value.scalars
        if x.tape.mode == .inference {
            let runningMeanValues = runningMean.value.scalars, runningVarianceValues = runningVariance.value.scalars
            var a = [Float](repeating: 0, count: c), b = [Float](repeating: 0, count: c)
            for k in 0..<c {
                a[k] = gamma[k] / (runningVarianceValues[k] + epsilon).squareRoot()
                b[k] = beta[k] - runningMeanValues[k] * a[k]
            }
            let y = Tensor(shape: input.shape) { out in
                input.withUnsafeBufferPointer { px in
                    a.withUnsafeBufferPointer { pa in
                        b.withUnsafeBufferPointer { pb in
                            ChannelKernels.affine(px.baseAddress!, pa.baseAddress!, pb.baseAddress!, out.baseAddress!,
                                               rows: rows, channels: c, relu: relu)
                        }
                    }
                }
                if activation == .swish { ChannelKernels.swish(out.baseAddress!, count: out.count) }
            }
            return x.tape.record(y, inputs: [x, scale, offset]) { g in
                // Inference-mode gradients (rarely needed): the statistics are constants.
                var normalized = [Float](repeating: 0, count: input.count)
                input.withUnsafeBufferPointer { px in
                    for r in 0..<rows {
                        for k in 0..<c {
                            let scaleK = a[k] / (gamma[k] == 0 ? 1 : gamma[k])
                            normalized[r * c + k] = (px[r * c + k] - runningMeanValues[k]) * scaleK
                        }
                    }
                }
                return ChannelKernels.normalizationGradients(g, output: y, normalized: normalized, gamma: gamma,
                                                          inverseDeviation: a.enumerated().map { $1 / (gamma[$0] == 0 ? 1 : gamma[$0]) },
                                                          rows: rows, channels: c, activation: activation, beta: beta,
                                                          batchStatistics: false)
            }
        }

        // Training: batch statistics (two passes; chunk partials combined in double precision).
        let (mean, variance) = input.withUnsafeBufferPointer { px in
            ChannelKernels.channelMoments(px.baseAddress!, rows: rows, channels: c)
        }
        let inverse = variance.map { Float(1 / ($0 + Double(epsilon)).squareRoot()) }
        let meanF = mean.map { Float($0) }
        // normalized = (x − μ)·σ⁻¹ = x·σ⁻¹ − μ·σ⁻¹; y = normalized·γ + β (one pass over both).
        let shift = (0..<c).map { -meanF[$0] * inverse[$0] }
        var normalized = [Float](unsafeUninitializedCapacity: input.count) { _, initialized in initialized = input.count }
        let y = Tensor(shape: input.shape) { out in
            input.withUnsafeBufferPointer { px in
                normalized.withUnsafeMutableBufferPointer { pn in
                    guard let x0 = px.baseAddress, let n0 = pn.baseAddress, let o0 = out.baseAddress else { return }
                    ChannelKernels.normalizeAndScale(x0, inverse, shift, normalized: n0, gamma, beta, o0,
                                                     rows: rows, channels: c, relu: relu)
                }
            }
            if activation == .swish { ChannelKernels.swish(out.baseAddress!, count: out.count) }
        }
        let unbiased = Double(rows) / Double(Swift.max(rows - 1, 1))
        var newMean = runningMean.value.scalars, newVariance = runningVariance.value.scalars
        for k in 0..<c {
            let batchVariance = Float(variance[k] * unbiased)
            newMean[k] = newMean[k] * (1 - momentum) + meanF[k] * momentum
            newVariance[k] = newVariance[k] * (1 - momentum) + batchVariance * momentum
        }
        runningMean.value = Tensor(shape: [c], scalars: newMean)
        runningVariance.value = Tensor(shape: [c], scalars: newVariance)
        return x.tape.record(y, inputs: [x, scale, offset]) { g in
            ChannelKernels.normalizationGradients(g, output: y, normalized: normalized, gamma: gamma, inverseDeviation: inverse,
                                               rows: rows, channels: c, activation: activation, beta: beta,
                                               batchStatistics: true)
        }
    }
}
