import Foundation

/// Pointer-level loops over [rows, channels] buffers behind the fused kernels (batch norm,
/// temporal convolution).
///
/// Large tensors are split into a fixed number of row chunks run across `ComputeThreads`;
/// per-chunk partial sums are combined in chunk order, so results do not depend on the number
/// of threads.
public enum ChannelKernels {
    /// How many row chunks a [rows, channels] pass is split into (1 for small tensors).
    public static func chunkCount(rows: Int, channels: Int) -> Int {
        rows * channels < 32_768 || rows < 64 ? 1 : 8
    }

    /// Runs `body(first, count)` over `chunks` contiguous row ranges of `rows`, in parallel.
    public static func forEachChunk(rows: Int, chunks: Int, _ body: (Int, Int, Int) -> Void) {
        parallelFor(chunks, minimumWork: 2) { k in
            let lower = k * rows / chunks, upper = (k + 1) * rows / chunks
            body(k, lower, upper - lower)
        }
    }

    /// out[r, k] = x[r, k]·a[k] + b[k] (then ReLU when `relu`), in parallel chunks.
    public static func affine(_ x: UnsafePointer<Float>, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
                       _ out: UnsafeMutablePointer<Float>, rows: Int, channels c: Int, relu: Bool) {
        forEachChunk(rows: rows, chunks: chunkCount(rows: rows, channels: c)) { _, first, count in
            affineSerial(x + first * c, a, b, out + first * c, rows: count, channels: c, relu: relu)
        }
    }

    /// Runs `body(row, count)` over rows `first..<first + count` in consecutive blocks of about
    /// 16 KiB of channels: passes made block by block read what the previous pass wrote from cache.
    @inline(__always)
    static func forEachRowBlock(first: Int, count: Int, channels c: Int, _ body: (Int, Int) -> Void) {
        let block = Swift.max(1, 4096 / Swift.max(c, 1))
        var row = first
        let end = first + count
        while row < end {
            let n = Swift.min(block, end - row)
            body(row, n)
            row += n
        }
    }

    /// normalized[r, k] = x[r, k]·a[k] + b[k], then out[r, k] = normalized[r, k]·γ[k] + β[k]
    /// (then ReLU when `relu`): `affine` twice, made block by block in parallel chunks, so the
    /// second pass reads the first's values from cache.
    public static func normalizeAndScale(_ x: UnsafePointer<Float>, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
                                         normalized: UnsafeMutablePointer<Float>, _ gamma: UnsafePointer<Float>,
                                         _ beta: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>,
                                         rows: Int, channels c: Int, relu: Bool) {
        forEachChunk(rows: rows, chunks: chunkCount(rows: rows, channels: c)) { _, first, count in
            forEachRowBlock(first: first, count: count, channels: c) { row, n in
                affineSerial(x + row * c, a, b, normalized + row * c, rows: n, channels: c, relu: false)
                affineSerial(normalized + row * c, gamma, beta, out + row * c, rows: n, channels: c, relu: relu)
            }
        }
    }

    /// out[r, k] += x[r, k]·a[k], in parallel chunks.
    public static func multiplyAdd(_ x: UnsafePointer<Float>, _ a: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>,
                            rows: Int, channels c: Int) {
        forEachChunk(rows: rows, chunks: chunkCount(rows: rows, channels: c)) { _, first, count in
            multiplyAddSerial(x + first * c, a, into: out + first * c, rows: count, channels: c)
        }
    }

    /// sum[k] = Σ_r a[r, k]; productSum[k] = Σ_r a[r, k]·b[r, k] — chunk partials added in order.
    public static func channelSums(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, rows: Int, channels c: Int,
                            sum: UnsafeMutablePointer<Float>, productSum: UnsafeMutablePointer<Float>) {
        channelSums(rows: rows, channels: c, sum: sum, productSum: productSum) { chunkSum, chunkProductSum, first, count in
            channelSumsSerial(a + first * c, b + first * c, rows: count, channels: c, sum: chunkSum, productSum: chunkProductSum)
        }
    }

    /// Per-channel sums whose rows `chunk(sum, productSum, first, count)` sums for every chunk of
    /// `chunkCount(rows:channels:)` (into zeroed partials), chunk partials added in order.
    static func channelSums(rows: Int, channels c: Int, sum: UnsafeMutablePointer<Float>, productSum: UnsafeMutablePointer<Float>,
                            chunk: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, Int, Int) -> Void) {
        let chunks = chunkCount(rows: rows, channels: c)
        var partial = [Float](repeating: 0, count: 2 * chunks * c)
        partial.withUnsafeMutableBufferPointer { pp in
            let base = pp.baseAddress!
            forEachChunk(rows: rows, chunks: chunks) { k, first, count in
                chunk(base + k * c, base + (chunks + k) * c, first, count)
            }
            for ch in 0..<c {
                var s: Float = 0, p: Float = 0
                for k in 0..<chunks { s += base[k * c + ch]; p += base[(chunks + k) * c + ch] }
                sum[ch] = s
                productSum[ch] = p
            }
        }
    }

    /// Per-channel mean and (biased) variance of x [rows, c], two passes, chunk partials in order.
    public static func channelMoments(_ x: UnsafePointer<Float>, rows: Int, channels c: Int) -> (mean: [Double], variance: [Double]) {
        let chunks = chunkCount(rows: rows, channels: c)
        var partial = [Double](repeating: 0, count: chunks * c)
        var mean = [Double](repeating: 0, count: c), variance = [Double](repeating: 0, count: c)
        let n = Double(Swift.max(rows, 1))
        partial.withUnsafeMutableBufferPointer { pp in
            let base = pp.baseAddress!
            forEachChunk(rows: rows, chunks: chunks) { k, first, count in
                var sums = [Float](repeating: 0, count: c)
                sums.withUnsafeMutableBufferPointer { ps in
                    for r in first..<(first + count) { multiplyAccumulateOnes(x + r * c, into: ps.baseAddress!, count: c) }
                }
                for ch in 0..<c { base[k * c + ch] = Double(sums[ch]) }
            }
            for ch in 0..<c { var s = 0.0; for k in 0..<chunks { s += base[k * c + ch] }; mean[ch] = s / n }
            let meanF = mean.map { Float($0) }
            forEachChunk(rows: rows, chunks: chunks) { k, first, count in
                var sums = [Float](repeating: 0, count: c)
                sums.withUnsafeMutableBufferPointer { ps in
                    meanF.withUnsafeBufferPointer { pm in
                        for r in first..<(first + count) {
                            squaredDeviationAccumulate(x + r * c, pm.baseAddress!, into: ps.baseAddress!, count: c)
                        }
                    }
                }
                for ch in 0..<c { base[k * c + ch] = Double(sums[ch]) }
            }
            for ch in 0..<c { var s = 0.0; for k in 0..<chunks { s += base[k * c + ch] }; variance[ch] = s / n }
        }
        return (mean, variance)
    }

    /// out[i] += x[i] for i in 0..<count.
    @inline(__always)
    public static func multiplyAccumulateOnes(_ x: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i + 8 <= count {
            let v = UnsafeRawPointer(out + i).loadUnaligned(as: SIMD8<Float>.self) + UnsafeRawPointer(x + i).loadUnaligned(as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(out + i).storeBytes(of: v, as: SIMD8<Float>.self)
            i += 8
        }
        while i < count { out[i] += x[i]; i += 1 }
    }

    /// out[i] += (x[i] − m[i])² for i in 0..<count.
    @inline(__always)
    public static func squaredDeviationAccumulate(_ x: UnsafePointer<Float>, _ m: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>,
                                           count: Int) {
        var i = 0
        while i + 8 <= count {
            let d = UnsafeRawPointer(x + i).loadUnaligned(as: SIMD8<Float>.self) - UnsafeRawPointer(m + i).loadUnaligned(as: SIMD8<Float>.self)
            let v = UnsafeRawPointer(out + i).loadUnaligned(as: SIMD8<Float>.self) + d * d
            UnsafeMutableRawPointer(out + i).storeBytes(of: v, as: SIMD8<Float>.self)
            i += 8
        }
        while i < count { let d = x[i] - m[i]; out[i] += d * d; i += 1 }
    }

    /// out[r, k] = x[r, k]·a[k] + b[k] (then ReLU when `relu`).
    public static func affineSerial(_ x: UnsafePointer<Float>, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
                             _ out: UnsafeMutablePointer<Float>, rows: Int, channels c: Int, relu: Bool) {
        if c % 8 == 0 {
            let zero = SIMD8<Float>(repeating: 0)
            for r in 0..<rows {
                let xr = UnsafeRawPointer(x + r * c), or = UnsafeMutableRawPointer(out + r * c)
                var k = 0
                while k < c {
                    let va = UnsafeRawPointer(a + k).loadUnaligned(as: SIMD8<Float>.self)
                    let vb = UnsafeRawPointer(b + k).loadUnaligned(as: SIMD8<Float>.self)
                    var v = xr.loadUnaligned(fromByteOffset: k * 4, as: SIMD8<Float>.self) * va + vb
                    if relu { v = v.replacing(with: zero, where: v .< zero) }
                    or.storeBytes(of: v, toByteOffset: k * 4, as: SIMD8<Float>.self)
                    k += 8
                }
            }
            return
        }
        for r in 0..<rows {
            let xr = x + r * c, or = out + r * c
            if relu {
                for k in 0..<c { or[k] = Swift.max(xr[k] * a[k] + b[k], 0) }
            } else {
                for k in 0..<c { or[k] = xr[k] * a[k] + b[k] }
            }
        }
    }

    /// x ← x·σ(x) over `count` values, in parallel chunks.
    public static func swish(_ x: UnsafeMutablePointer<Float>, count: Int) {
        let chunks = count < 32_768 ? 1 : 8
        forEachChunk(rows: count, chunks: chunks) { _, first, n in
            let p = x + first
            for i in 0..<n { p[i] = p[i] / (1 + Foundation.exp(-p[i])) }
        }
    }

    /// Gradients of y = act(n·γ + β) with n the normalised input: for batch statistics
    /// dx = γ·σ⁻¹·(ĝ − mean(ĝ) − n·mean(ĝ·n)); for fixed statistics dx = γ·σ⁻¹·ĝ; ĝ is g
    /// times the activation's derivative. Returns [dx, dγ, dβ].
    public static func normalizationGradients(_ g: Tensor, output y: Tensor, normalized: [Float], gamma: [Float],
                                       inverseDeviation: [Float], rows: Int, channels c: Int,
                                       activation: NormalizationActivation, beta: [Float],
                                       batchStatistics: Bool) -> [Tensor?] {
        let count = rows * c
        // ĝ (the gradient before the activation) and its per-channel sums of ĝ and ĝ·n,
        // accumulated row by row in SIMD registers when possible.
        var masked: [Float]
        var gBeta = [Float](repeating: 0, count: c), gGamma = [Float](repeating: 0, count: c)
        switch activation {
        case .none:
            masked = g.scalars
        case .relu:
            // ĝ = g where the output is positive, else 0, block by block, each block summed while
            // it is in cache. Both values are loaded before the choice, so the loop is a vector
            // select, not a branch mispredicted at about every other element.
            masked = [Float](unsafeUninitializedCapacity: count) { pm, initialized in
                g.withUnsafeBufferPointer { pg in
                    y.withUnsafeBufferPointer { py in
                        normalized.withUnsafeBufferPointer { pn in
                            gBeta.withUnsafeMutableBufferPointer { pdb in
                                gGamma.withUnsafeMutableBufferPointer { pdg in
                                    guard let m0 = pm.baseAddress, let g0 = pg.baseAddress, let y0 = py.baseAddress,
                                          let n0 = pn.baseAddress else { return }
                                    channelSums(rows: rows, channels: c, sum: pdb.baseAddress!, productSum: pdg.baseAddress!) { sum, productSum, first, n in
                                        forEachRowBlock(first: first, count: n, channels: c) { row, rowCount in
                                            for i in (row * c)..<((row + rowCount) * c) {
                                                let gradient = g0[i], output = y0[i]
                                                m0[i] = output <= 0 ? 0 : gradient
                                            }
                                            channelSumsSerial(m0 + row * c, n0 + row * c, rows: rowCount, channels: c,
                                                              sum: sum, productSum: productSum, continuing: row > first)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                initialized = count
            }
        case .swish:
            masked = g.scalars
            normalized.withUnsafeBufferPointer { pn in
                masked.withUnsafeMutableBufferPointer { pm in
                    forEachChunk(rows: rows, chunks: chunkCount(rows: rows, channels: c)) { _, first, n in
                        for r in first..<(first + n) {
                            for k in 0..<c {
                                let i = r * c + k
                                let pre = pn[i] * gamma[k] + beta[k]
                                let s = 1 / (1 + Foundation.exp(-pre))
                                pm[i] *= s * (1 + pre * (1 - s))
                            }
                        }
                    }
                }
            }
        }
        if activation != .relu {
            masked.withUnsafeBufferPointer { pm in
                normalized.withUnsafeBufferPointer { pn in
                    gBeta.withUnsafeMutableBufferPointer { pdb in
                        gGamma.withUnsafeMutableBufferPointer { pdg in
                            ChannelKernels.channelSums(pm.baseAddress!, pn.baseAddress!, rows: rows, channels: c,
                                                       sum: pdb.baseAddress!, productSum: pdg.baseAddress!)
                        }
                    }
                }
            }
        }
        let m = Float(Swift.max(rows, 1))
        let factor = (0..<c).map { gamma[$0] * inverseDeviation[$0] }
        // dx = f·ĝ + (−f·mean(ĝ)) + n·(−f·mean(ĝ·n)): two affine passes, block by block.
        let shift = (0..<c).map { batchStatistics ? -factor[$0] * gBeta[$0] / m : 0 }
        let slope = (0..<c).map { batchStatistics ? -factor[$0] * gGamma[$0] / m : 0 }
        let gx = Tensor(shape: g.shape) { out in
            masked.withUnsafeBufferPointer { pm in
                normalized.withUnsafeBufferPointer { pn in
                    factor.withUnsafeBufferPointer { pf in
                        shift.withUnsafeBufferPointer { ps in
                            slope.withUnsafeBufferPointer { pl in
                                guard let m0 = pm.baseAddress, let n0 = pn.baseAddress, let o0 = out.baseAddress else { return }
                                let f0 = pf.baseAddress!, s0 = ps.baseAddress!, l0 = pl.baseAddress!
                                forEachChunk(rows: rows, chunks: chunkCount(rows: rows, channels: c)) { _, first, n in
                                    forEachRowBlock(first: first, count: n, channels: c) { row, rowCount in
                                        affineSerial(m0 + row * c, f0, s0, o0 + row * c, rows: rowCount, channels: c, relu: false)
                                        multiplyAddSerial(n0 + row * c, l0, into: o0 + row * c, rows: rowCount, channels: c)
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

    /// sum[k] = Σ_r a[r, k]; productSum[k] = Σ_r a[r, k]·b[r, k]; with `continuing`, the rows'
    /// terms are added on to the sums there (the same values as one call over all the rows).
    public static func channelSumsSerial(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, rows: Int, channels c: Int,
                                  sum: UnsafeMutablePointer<Float>, productSum: UnsafeMutablePointer<Float>,
                                  continuing: Bool = false) {
        if c % 8 == 0 {
            var k = 0
            while k < c {
                var s = SIMD8<Float>(repeating: 0), p = SIMD8<Float>(repeating: 0)
                if continuing {
                    s = UnsafeRawPointer(sum + k).loadUnaligned(as: SIMD8<Float>.self)
                    p = UnsafeRawPointer(productSum + k).loadUnaligned(as: SIMD8<Float>.self)
                }
                for r in 0..<rows {
                    let va = UnsafeRawPointer(a + r * c + k).loadUnaligned(as: SIMD8<Float>.self)
                    let vb = UnsafeRawPointer(b + r * c + k).loadUnaligned(as: SIMD8<Float>.self)
                    s += va
                    p += va * vb
                }
                for lane in 0..<8 { sum[k + lane] = s[lane]; productSum[k + lane] = p[lane] }
                k += 8
            }
            return
        }
        if !continuing { for k in 0..<c { sum[k] = 0; productSum[k] = 0 } }
        for r in 0..<rows {
            for k in 0..<c {
                let v = a[r * c + k]
                sum[k] += v
                productSum[k] += v * b[r * c + k]
            }
        }
    }

    /// out[k] += x[r, k]·y[r, k] for r = 0, 1, … in that order (the same sums as a pass per row,
    /// with out[k] kept in registers across the rows).
    public static func accumulateRowProducts(_ x: UnsafePointer<Float>, _ y: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>,
                                             rows: Int, channels c: Int) {
        var k = 0
        while k + 8 <= c {
            var acc = UnsafeRawPointer(out + k).loadUnaligned(as: SIMD8<Float>.self)
            for r in 0..<rows {
                acc = acc + UnsafeRawPointer(x + r * c + k).loadUnaligned(as: SIMD8<Float>.self)
                    * UnsafeRawPointer(y + r * c + k).loadUnaligned(as: SIMD8<Float>.self)
            }
            UnsafeMutableRawPointer(out + k).storeBytes(of: acc, as: SIMD8<Float>.self)
            k += 8
        }
        while k < c {
            var acc = out[k]
            for r in 0..<rows { acc = acc + x[r * c + k] * y[r * c + k] }
            out[k] = acc
            k += 1
        }
    }

    /// out[r, k] += x[r, k]·a[k].
    public static func multiplyAddSerial(_ x: UnsafePointer<Float>, _ a: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>,
                                  rows: Int, channels c: Int) {
        if c % 8 == 0 {
            for r in 0..<rows {
                let xr = UnsafeRawPointer(x + r * c), or = UnsafeMutableRawPointer(out + r * c)
                var k = 0
                while k < c {
                    let va = UnsafeRawPointer(a + k).loadUnaligned(as: SIMD8<Float>.self)
                    let v = or.loadUnaligned(fromByteOffset: k * 4, as: SIMD8<Float>.self)
                        + xr.loadUnaligned(fromByteOffset: k * 4, as: SIMD8<Float>.self) * va
                    or.storeBytes(of: v, toByteOffset: k * 4, as: SIMD8<Float>.self)
                    k += 8
                }
            }
            return
        }
        for r in 0..<rows { for k in 0..<c { out[r * c + k] += x[r * c + k] * a[k] } }
    }
}
