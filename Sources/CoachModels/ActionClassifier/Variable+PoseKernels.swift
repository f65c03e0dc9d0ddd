import CoachNN

/// Fused kernels the action classifier's network runs on every step: batch normalisation with an
/// optional ReLU in one pass (instead of a dozen elementwise ops), and a convolution over time
/// done as one GEMM for the whole batch. Each backward sits beside its forward; both have
/// numerical gradient checks in the tests.
extension Variable {
    /// Batch normalisation over every axis but the last (channels), then ReLU when `relu`.
    ///
    /// In training mode it normalises with the batch's mean and (biased) variance and moves the
    /// running statistics towards the batch's (`momentum`; unbiased variance, as PyTorch and
    /// `CoachNN.BatchNorm` do); in inference mode it uses the running statistics.
    public static func batchNormalized(_ x: Variable, scale: Variable, offset: Variable, runningMean: Parameter,
                                       runningVariance: Parameter, momentum: Float, epsilon: Float, relu: Bool) -> Variable {
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
                            PoseKernels.affine(px.baseAddress!, pa.baseAddress!, pb.baseAddress!, out.baseAddress!,
                                               rows: rows, channels: c, relu: relu)
                        }
                    }
                }
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
                return PoseKernels.normalizationGradients(g, output: y, normalized: normalized, gamma: gamma,
                                                          inverseDeviation: a.enumerated().map { $1 / (gamma[$0] == 0 ? 1 : gamma[$0]) },
                                                          rows: rows, channels: c, relu: relu, batchStatistics: false)
            }
        }

        // Training: batch statistics (two passes, double accumulators).
        var mean = [Double](repeating: 0, count: c), variance = [Double](repeating: 0, count: c)
        input.withUnsafeBufferPointer { px in
            mean.withUnsafeMutableBufferPointer { pm in
                variance.withUnsafeMutableBufferPointer { pv in
                    for r in 0..<rows { let base = r * c; for k in 0..<c { pm[k] += Double(px[base + k]) } }
                    for k in 0..<c { pm[k] /= Double(Swift.max(rows, 1)) }
                    for r in 0..<rows {
                        let base = r * c
                        for k in 0..<c { let d = Double(px[base + k]) - pm[k]; pv[k] += d * d }
                    }
                    for k in 0..<c { pv[k] /= Double(Swift.max(rows, 1)) }
                }
            }
        }
        let inverse = variance.map { Float(1 / ($0 + Double(epsilon)).squareRoot()) }
        let meanF = mean.map { Float($0) }
        // normalized = (x − μ)·σ⁻¹ = x·σ⁻¹ − μ·σ⁻¹; y = normalized·γ + β.
        let shift = (0..<c).map { -meanF[$0] * inverse[$0] }
        var normalized = [Float](repeating: 0, count: input.count)
        input.withUnsafeBufferPointer { px in
            inverse.withUnsafeBufferPointer { pi in
                shift.withUnsafeBufferPointer { ps in
                    normalized.withUnsafeMutableBufferPointer { pn in
                        PoseKernels.affine(px.baseAddress!, pi.baseAddress!, ps.baseAddress!, pn.baseAddress!,
                                           rows: rows, channels: c, relu: false)
                    }
                }
            }
        }
        let y = Tensor(shape: input.shape) { out in
            normalized.withUnsafeBufferPointer { pn in
                gamma.withUnsafeBufferPointer { pg in
                    beta.withUnsafeBufferPointer { pb in
                        PoseKernels.affine(pn.baseAddress!, pg.baseAddress!, pb.baseAddress!, out.baseAddress!,
                                           rows: rows, channels: c, relu: relu)
                    }
                }
            }
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
            PoseKernels.normalizationGradients(g, output: y, normalized: normalized, gamma: gamma, inverseDeviation: inverse,
                                               rows: rows, channels: c, relu: relu, batchStatistics: true)
        }
    }

    /// A convolution over time of [N, T, J, C] (each joint's channels convolved along T) with a
    /// filter [k, C, Cout], TensorFlow SAME padding and temporal `stride`: [N, ⌈T/stride⌉, J, Cout].
    ///
    /// All N·T'·J output rows are unfolded into one [rows, k·C] matrix so the convolution is a
    /// single GEMM for the whole batch (and so are both gradients).
    public static func temporalConvolution(_ x: Variable, filter: Variable, stride: Int = 1) -> Variable {
        let input = x.value, weights = filter.value
        precondition(input.rank == 4 && weights.rank == 3 && weights.shape[1] == input.shape[3],
                     "temporalConvolution needs [N, T, J, C] and [k, C, Cout], got \(input.shape) and \(weights.shape)")
        let n = input.shape[0], t = input.shape[1], j = input.shape[2], c = input.shape[3]
        let k = weights.shape[0], cout = weights.shape[2]
        let s = Swift.max(stride, 1)
        let outT = (t + s - 1) / s
        let padBefore = Swift.max((outT - 1) * s + k - t, 0) / 2
        let rows = n * outT * j, width = k * c
        let columns = Tensor(shape: [rows, width]) { cols in
            input.withUnsafeBufferPointer { px in
                for b in 0..<n {
                    for to in 0..<outT {
                        for joint in 0..<j {
                            let row = ((b * outT + to) * j + joint) * width
                            for d in 0..<k {
                                let ti = to * s + d - padBefore
                                let destination = row + d * c
                                if ti < 0 || ti >= t {
                                    for ch in 0..<c { cols[destination + ch] = 0 }
                                } else {
                                    let source = ((b * t + ti) * j + joint) * c
                                    for ch in 0..<c { cols[destination + ch] = px[source + ch] }
                                }
                            }
                        }
                    }
                }
            }
        }
        let flatWeights = weights.reshaped(to: [width, cout])
        let y = Tensor.matmul(columns, flatWeights).reshaped(to: [n, outT, j, cout])
        return x.tape.record(y, inputs: [x, filter]) { g in
            let gFlat = g.reshaped(to: [rows, cout])
            let gWeights = Tensor.matmul(columns, gFlat, transposeA: true).reshaped(to: [k, c, cout])
            let gColumns = Tensor.matmul(gFlat, flatWeights, transposeB: true)
            var gx = Tensor.zeros(input.shape)
            gx.withUnsafeMutableBufferPointer { pgx in
                gColumns.withUnsafeBufferPointer { pcols in
                    for b in 0..<n {
                        for to in 0..<outT {
                            for joint in 0..<j {
                                let row = ((b * outT + to) * j + joint) * width
                                for d in 0..<k {
                                    let ti = to * s + d - padBefore
                                    guard ti >= 0 && ti < t else { continue }
                                    let destination = ((b * t + ti) * j + joint) * c
                                    let source = row + d * c
                                    for ch in 0..<c { pgx[destination + ch] += pcols[source + ch] }
                                }
                            }
                        }
                    }
                }
            }
            return [gx, gWeights]
        }
    }
}

/// Pointer-level loops behind the fused kernels.
enum PoseKernels {
    /// out[r, k] = x[r, k]·a[k] + b[k] (then ReLU when `relu`).
    static func affine(_ x: UnsafePointer<Float>, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
                       _ out: UnsafeMutablePointer<Float>, rows: Int, channels c: Int, relu: Bool) {
        for r in 0..<rows {
            let xr = x + r * c, or = out + r * c
            if relu {
                for k in 0..<c { or[k] = Swift.max(xr[k] * a[k] + b[k], 0) }
            } else {
                for k in 0..<c { or[k] = xr[k] * a[k] + b[k] }
            }
        }
    }

    /// Gradients of y = ReLU?(n·γ + β) with n the normalised input: for batch statistics
    /// dx = γ·σ⁻¹·(ĝ − mean(ĝ) − n·mean(ĝ·n)); for fixed statistics dx = γ·σ⁻¹·ĝ; ĝ is g masked
    /// by the ReLU. Returns [dx, dγ, dβ].
    static func normalizationGradients(_ g: Tensor, output y: Tensor, normalized: [Float], gamma: [Float],
                                       inverseDeviation: [Float], rows: Int, channels c: Int, relu: Bool,
                                       batchStatistics: Bool) -> [Tensor?] {
        var gGamma = [Float](repeating: 0, count: c), gBeta = [Float](repeating: 0, count: c)
        var masked = [Float](repeating: 0, count: rows * c)
        g.withUnsafeBufferPointer { pg in
            y.withUnsafeBufferPointer { py in
                normalized.withUnsafeBufferPointer { pn in
                    masked.withUnsafeMutableBufferPointer { pm in
                        gGamma.withUnsafeMutableBufferPointer { pdg in
                            gBeta.withUnsafeMutableBufferPointer { pdb in
                                for r in 0..<rows {
                                    let base = r * c
                                    for k in 0..<c {
                                        let gi = relu && py[base + k] <= 0 ? 0 : pg[base + k]
                                        pm[base + k] = gi
                                        pdb[k] += gi
                                        pdg[k] += gi * pn[base + k]
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        let m = Float(Swift.max(rows, 1))
        let factor = (0..<c).map { gamma[$0] * inverseDeviation[$0] }
        let meanBeta = batchStatistics ? gBeta.map { $0 / m } : [Float](repeating: 0, count: c)
        let meanGamma = batchStatistics ? gGamma.map { $0 / m } : [Float](repeating: 0, count: c)
        let gx = Tensor(shape: g.shape) { out in
            masked.withUnsafeBufferPointer { pm in
                normalized.withUnsafeBufferPointer { pn in
                    factor.withUnsafeBufferPointer { pf in
                        meanBeta.withUnsafeBufferPointer { pmb in
                            meanGamma.withUnsafeBufferPointer { pmg in
                                for r in 0..<rows {
                                    let base = r * c
                                    for k in 0..<c {
                                        out[base + k] = pf[k] * (pm[base + k] - pmb[k] - pn[base + k] * pmg[k])
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return [gx, Tensor(shape: [c], scalars: gGamma), Tensor(shape: [c], scalars: gBeta)]
    }
}

extension Variable {
    /// A depthwise convolution over time of [N, T, J, C] — each channel of each joint convolved
    /// along T with its own kernel column of `filter` [k, C] — with TensorFlow SAME padding and
    /// temporal `stride`: [N, ⌈T/stride⌉, J, C].
    public static func depthwiseTemporalConvolution(_ x: Variable, filter: Variable, stride: Int = 1) -> Variable {
        let input = x.value, weights = filter.value
        precondition(input.rank == 4 && weights.rank == 2 && weights.shape[1] == input.shape[3],
                     "depthwiseTemporalConvolution needs [N, T, J, C] and [k, C], got \(input.shape) and \(weights.shape)")
        let n = input.shape[0], t = input.shape[1], j = input.shape[2], c = input.shape[3]
        let k = weights.shape[0], s = Swift.max(stride, 1)
        let outT = (t + s - 1) / s
        let padBefore = Swift.max((outT - 1) * s + k - t, 0) / 2
        let y = Tensor(shape: [n, outT, j, c]) { out in
            for i in 0..<out.count { out[i] = 0 }
            input.withUnsafeBufferPointer { px in
                weights.withUnsafeBufferPointer { pw in
                    for b in 0..<n {
                        for to in 0..<outT {
                            for d in 0..<k {
                                let ti = to * s + d - padBefore
                                guard ti >= 0 && ti < t else { continue }
                                let w = pw.baseAddress! + d * c
                                for joint in 0..<j {
                                    let o = out.baseAddress! + ((b * outT + to) * j + joint) * c
                                    let xi = px.baseAddress! + ((b * t + ti) * j + joint) * c
                                    for ch in 0..<c { o[ch] += w[ch] * xi[ch] }
                                }
                            }
                        }
                    }
                }
            }
        }
        return x.tape.record(y, inputs: [x, filter]) { g in
            var gx = Tensor.zeros(input.shape)
            var gw = Tensor.zeros(weights.shape)
            gx.withUnsafeMutableBufferPointer { pgx in
                gw.withUnsafeMutableBufferPointer { pgw in
                    g.withUnsafeBufferPointer { pg in
                        input.withUnsafeBufferPointer { px in
                            weights.withUnsafeBufferPointer { pw in
                                for b in 0..<n {
                                    for to in 0..<outT {
                                        for d in 0..<k {
                                            let ti = to * s + d - padBefore
                                            guard ti >= 0 && ti < t else { continue }
                                            let w = pw.baseAddress! + d * c, gwd = pgw.baseAddress! + d * c
                                            for joint in 0..<j {
                                                let go = pg.baseAddress! + ((b * outT + to) * j + joint) * c
                                                let offset = ((b * t + ti) * j + joint) * c
                                                let xi = px.baseAddress! + offset, gxi = pgx.baseAddress! + offset
                                                for ch in 0..<c {
                                                    gxi[ch] += w[ch] * go[ch]
                                                    gwd[ch] += xi[ch] * go[ch]
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            return [gx, gw]
        }
    }
}
