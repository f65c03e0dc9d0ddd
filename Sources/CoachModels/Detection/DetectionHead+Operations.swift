import CoachNN
import Foundation

extension Variable {
    /// `input · weight` for a constant input [M, K] (frozen features) and a weight [K, N]:
    /// only the weight gets a gradient, `inputᵀ · g`, so no work is spent on the input's.
    static func constantProduct(_ input: Tensor, _ weight: Variable) -> Variable {
        precondition(input.rank == 2 && weight.rank == 2 && input.shape[1] == weight.shape[0],
                     "constantProduct: \(input.shape) · \(weight.shape)")
        return weight.tape.record(Tensor.matmul(input, weight.value), inputs: [weight]) { g in
            [Tensor.matmul(input, g, transposeA: true)]
        }
    }

    /// Nearest-neighbour upsampling of [N, h, w, C] by 2 in each spatial axis → [N, 2h, 2w, C];
    /// the gradient sums each 2×2 block back.
    func upsampledTwice() -> Variable {
        let s = shape
        precondition(s.count == 4, "upsampling needs [N, H, W, C], got \(s)")
        let (n, h, w, c) = (s[0], s[1], s[2], s[3])
        let x = value
        let y = Tensor(shape: [n, 2 * h, 2 * w, c]) { out in
            x.withUnsafeBufferPointer { px in
                for b in 0..<n {
                    for row in 0..<(2 * h) {
                        for column in 0..<(2 * w) {
                            let source = px.baseAddress! + ((b * h + row / 2) * w + column / 2) * c
                            (out.baseAddress! + ((b * 2 * h + row) * 2 * w + column) * c).update(from: source, count: c)
                        }
                    }
                }
            }
        }
        return tape.record(y, inputs: [self]) { g in
            [Tensor(shape: [n, h, w, c]) { out in
                out.update(repeating: 0)
                g.withUnsafeBufferPointer { pg in
                    for b in 0..<n {
                        for row in 0..<(2 * h) {
                            for column in 0..<(2 * w) {
                                let source = pg.baseAddress! + ((b * 2 * h + row) * 2 * w + column) * c
                                let target = out.baseAddress! + ((b * h + row / 2) * w + column / 2) * c
                                for q in 0..<c { target[q] += source[q] }
                            }
                        }
                    }
                }
            }]
        }
    }
}

extension BatchNorm {
    /// This batch norm over the last axis, optionally followed by swish (x·σ(x)), as one op
    /// with a hand-written backward: the same maths and running-statistics update as
    /// `callAsFunction` (batch statistics and an unbiased running variance in training,
    /// running statistics in inference), without a dozen elementwise passes.
    func fused(_ x: Variable, swish: Bool) -> Variable {
        let tape = x.tape
        let gammaVariable = tape.variable(for: scale), betaVariable = tape.variable(for: offset)
        let channels = x.shape.last!, rows = x.value.count / max(channels, 1)
        let gamma = scale.value.scalars, beta = offset.value.scalars
        var mean = [Float](repeating: 0, count: channels), invStd = [Float](repeating: 0, count: channels)
        let input = x.value
        if tape.mode == .training {
            var variance = [Double](repeating: 0, count: channels), sums = [Double](repeating: 0, count: channels)
            input.withUnsafeBufferPointer { p in
                for row in 0..<rows {
                    let r = p.baseAddress! + row * channels
                    for c in 0..<channels { sums[c] += Double(r[c]) }
                }
                for c in 0..<channels { mean[c] = Float(sums[c] / Double(max(rows, 1))) }
                for row in 0..<rows {
                    let r = p.baseAddress! + row * channels
                    for c in 0..<channels { let d = Double(r[c] - mean[c]); variance[c] += d * d }
                }
            }
            let n = Float(rows)
            var runningMeanValues = runningMean.value.scalars, runningVarianceValues = runningVariance.value.scalars
            for c in 0..<channels {
                let biased = Float(variance[c] / Double(max(rows, 1)))
                invStd[c] = 1 / (biased + epsilon).squareRoot()
                runningMeanValues[c] = runningMeanValues[c] * (1 - momentum) + mean[c] * momentum
                runningVarianceValues[c] = runningVarianceValues[c] * (1 - momentum) + biased * (n / max(n - 1, 1)) * momentum
            }
            runningMean.value = Tensor(shape: [channels], scalars: runningMeanValues)
            runningVariance.value = Tensor(shape: [channels], scalars: runningVarianceValues)
        } else {
            let rm = runningMean.value.scalars, rv = runningVariance.value.scalars
            for c in 0..<channels {
                mean[c] = rm[c]
                invStd[c] = 1 / (rv[c] + epsilon).squareRoot()
            }
        }
        // Forward: x̂ = (x − μ)/σ, y = γ·x̂ + β, out = swish(y) or y.
        var normalized = [Float](repeating: 0, count: input.count)
        let output = Tensor(shape: x.shape) { out in
            input.withUnsafeBufferPointer { p in
                normalized.withUnsafeMutableBufferPointer { xh in
                    for row in 0..<rows {
                        let r = p.baseAddress! + row * channels, h = xh.baseAddress! + row * channels
                        let o = out.baseAddress! + row * channels
                        for c in 0..<channels {
                            let v = (r[c] - mean[c]) * invStd[c]
                            h[c] = v
                            let y = gamma[c] * v + beta[c]
                            o[c] = swish ? y / (1 + Foundation.exp(-y)) : y
                        }
                    }
                }
            }
        }
        let training = tape.mode == .training
        let shape = x.shape
        return tape.record(output, inputs: [x, gammaVariable, betaVariable]) { g in
            var dGamma = [Float](repeating: 0, count: channels), dBeta = [Float](repeating: 0, count: channels)
            var dy = [Float](repeating: 0, count: g.count)
            g.withUnsafeBufferPointer { pg in
                normalized.withUnsafeBufferPointer { xh in
                    dy.withUnsafeMutableBufferPointer { pd in
                        for row in 0..<rows {
                            let gr = pg.baseAddress! + row * channels, h = xh.baseAddress! + row * channels
                            let d = pd.baseAddress! + row * channels
                            for c in 0..<channels {
                                var value = gr[c]
                                if swish {
                                    let y = gamma[c] * h[c] + beta[c]
                                    let s = 1 / (1 + Foundation.exp(-y))
                                    value *= s * (1 + y * (1 - s))
                                }
                                d[c] = value
                                dBeta[c] += value
                                dGamma[c] += value * h[c]
                            }
                        }
                    }
                }
            }
            let dx = Tensor(shape: shape) { out in
                normalized.withUnsafeBufferPointer { xh in
                    dy.withUnsafeBufferPointer { d in
                        let m = Float(max(rows, 1))
                        for row in 0..<rows {
                            let h = xh.baseAddress! + row * channels, dr = d.baseAddress! + row * channels
                            let o = out.baseAddress! + row * channels
                            for c in 0..<channels {
                                o[c] = training
                                    ? gamma[c] * invStd[c] * (dr[c] - dBeta[c] / m - h[c] * dGamma[c] / m)
                                    : gamma[c] * invStd[c] * dr[c]
                            }
                        }
                    }
                }
            }
            return [dx, Tensor(shape: [channels], scalars: dGamma), Tensor(shape: [channels], scalars: dBeta)]
        }
    }
}
