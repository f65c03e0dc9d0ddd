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

        // Training: batch statistics (two passes; chunk partials combined in double precision).
        let (mean, variance) = input.withUnsafeBufferPointer { px in
            PoseKernels.channelMoments(px.baseAddress!, rows: rows, channels: c)
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
        // Chunks of whole sequences, fixed by the shape (not the thread count), for determinism.
        let chunks = Swift.min(n, PoseKernels.chunkCount(rows: n * t * j, channels: c))
        let y = Tensor(shape: [n, outT, j, c]) { out in
            for i in 0..<out.count { out[i] = 0 }
            let po = out.baseAddress!
            input.withUnsafeBufferPointer { px in
                weights.withUnsafeBufferPointer { pw in
                    let x0 = px.baseAddress!, w0 = pw.baseAddress!
                    PoseKernels.forEachChunk(rows: n, chunks: chunks) { _, first, count in
                        for b in first..<(first + count) {
                            for to in 0..<outT {
                                for d in 0..<k {
                                    let ti = to * s + d - padBefore
                                    guard ti >= 0 && ti < t else { continue }
                                    for joint in 0..<j {
                                        PoseKernels.multiplyAccumulate(x0 + ((b * t + ti) * j + joint) * c, w0 + d * c,
                                                                       into: po + ((b * outT + to) * j + joint) * c, count: c)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return x.tape.record(y, inputs: [x, filter]) { g in
            var gx = Tensor.zeros(input.shape)
            var partial = [Float](repeating: 0, count: chunks * k * c)
            gx.withUnsafeMutableBufferPointer { pgx in
                partial.withUnsafeMutableBufferPointer { ppart in
                    g.withUnsafeBufferPointer { pg in
                        input.withUnsafeBufferPointer { px in
                            weights.withUnsafeBufferPointer { pw in
                                let gx0 = pgx.baseAddress!, part0 = ppart.baseAddress!, g0 = pg.baseAddress!
                                let x0 = px.baseAddress!, w0 = pw.baseAddress!
                                PoseKernels.forEachChunk(rows: n, chunks: chunks) { chunk, first, count in
                                    let gw = part0 + chunk * k * c
                                    for b in first..<(first + count) {
                                        for to in 0..<outT {
                                            for d in 0..<k {
                                                let ti = to * s + d - padBefore
                                                guard ti >= 0 && ti < t else { continue }
                                                for joint in 0..<j {
                                                    let go = g0 + ((b * outT + to) * j + joint) * c
                                                    let offset = ((b * t + ti) * j + joint) * c
                                                    PoseKernels.multiplyAccumulate(go, w0 + d * c, into: gx0 + offset, count: c)
                                                    PoseKernels.multiplyAccumulate(go, x0 + offset, into: gw + d * c, count: c)
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
            var gw = [Float](repeating: 0, count: k * c)
            for chunk in 0..<chunks { for i in 0..<(k * c) { gw[i] += partial[chunk * k * c + i] } }
            return [gx, Tensor(shape: weights.shape, scalars: gw)]
        }
    }
}
