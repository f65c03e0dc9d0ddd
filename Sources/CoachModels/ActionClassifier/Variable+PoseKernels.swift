import CoachNN

/// Fused kernels of the pose networks: a convolution over time done as one GEMM for the
/// whole batch, and its depthwise variant. Each backward sits beside its forward; both
/// have numerical gradient checks in the tests.
extension Variable {
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
        let chunks = Swift.min(n, ChannelKernels.chunkCount(rows: n * t * j, channels: c))
        let y = Tensor(shape: [n, outT, j, c]) { out in
            guard let po = out.baseAddress else { return }
            input.withUnsafeBufferPointer { px in
                weights.withUnsafeBufferPointer { pw in
                    let x0 = px.baseAddress!, w0 = pw.baseAddress!
                    ChannelKernels.forEachChunk(rows: n, chunks: chunks) { _, first, count in
                        for b in first..<(first + count) {
                            for to in 0..<outT {
                                // Each output frame is zeroed just before its sums (in cache).
                                (po + (b * outT + to) * j * c).initialize(repeating: 0, count: j * c)
                                for d in 0..<k {
                                    let ti = to * s + d - padBefore
                                    guard ti >= 0 && ti < t else { continue }
                                    // Every joint's row of channels times the same kernel row.
                                    ChannelKernels.multiplyAddSerial(x0 + (b * t + ti) * j * c, w0 + d * c,
                                                                     into: po + (b * outT + to) * j * c, rows: j, channels: c)
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
                                ChannelKernels.forEachChunk(rows: n, chunks: chunks) { chunk, first, count in
                                    let gw = part0 + chunk * k * c
                                    for b in first..<(first + count) {
                                        for to in 0..<outT {
                                            for d in 0..<k {
                                                let ti = to * s + d - padBefore
                                                guard ti >= 0 && ti < t else { continue }
                                                let go = g0 + (b * outT + to) * j * c
                                                let offset = (b * t + ti) * j * c
                                                ChannelKernels.multiplyAddSerial(go, w0 + d * c, into: gx0 + offset, rows: j, channels: c)
                                                ChannelKernels.accumulateRowProducts(go, x0 + offset, into: gw + d * c, rows: j, channels: c)
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

extension Variable {
    /// A graph convolution's joint mixing: `x` [M, J, C] (M frames) and `adjacency` [R, J] give
    /// [M, R, C], out[m, r, :] = Σ_j adjacency[r, j] · x[m, j, :] (`Tensor.jointMixing`). The input
    /// gradient is the same mixing by the transposed adjacency; the adjacency's sums over every
    /// frame and channel (`Tensor.jointMixingAdjacencyGradient`).
    public static func jointMixing(_ x: Variable, adjacency: Variable) -> Variable {
        let input = x.value, a = adjacency.value
        let y = Tensor.jointMixing(input, adjacency: a)
        return x.tape.record(y, inputs: [x, adjacency]) { g in
            [Tensor.jointMixing(g, adjacency: a.transposed()), Tensor.jointMixingAdjacencyGradient(g, input)]
        }
    }
}
