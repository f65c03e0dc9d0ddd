import CKernels

/// Pointer-level inference kernels for networks that manage their own buffers (the
/// backbone): no allocation inside, bias and activation applied while the output is
/// still in cache.
///
/// All buffers are NHWC float32; callers guarantee sizes. These are the building blocks
/// behind `Tensor.conv2D` / `depthwiseConv2D` for code that must not allocate per layer.
public enum Kernels {
    /// `count` floats starting on a cache line (64 bytes): a 512-bit load of 16 channels of a
    /// pixel whose channel count is a multiple of 16 then never splits two lines (split loads
    /// cost the depthwise kernel about a third of its speed). Free with `deallocate()`.
    public static func allocateAligned(_ count: Int) -> UnsafeMutablePointer<Float> {
        UnsafeMutableRawPointer.allocate(byteCount: Swift.max(count, 1) * MemoryLayout<Float>.stride, alignment: 64)
            .bindMemory(to: Float.self, capacity: Swift.max(count, 1))
    }

    /// `count` rounded up to whole cache lines of floats, for buffers carved from one allocation.
    public static func alignedCount(_ count: Int) -> Int { (count + 15) / 16 * 16 }

    /// Rows of a pointwise GEMM computed per chunk, so the chunk's output (≤ ~256 KiB)
    /// is still in L2 when the epilogue (bias, activation) runs over it.
    @inline(__always)
    static func chunkRows(outputChannels: Int) -> Int { Swift.max(32, 65_536 / Swift.max(outputChannels, 1)) }

    /// A 1×1 convolution over `rows` pixels: output = act(input · filter + bias [+ residual]).
    ///
    /// - Parameters:
    ///   - filter: [inputChannels, outputChannels] (an HWIO 1×1 filter).
    ///   - residual: added before the activation when given (same shape as the output).
    ///   - slopes: per-output-channel PReLU slopes applied last (with `activation` `.none`):
    ///     max(v, 0) + slope · min(v, 0).
    public static func pointwise(input: UnsafePointer<Float>, rows: Int, inputChannels: Int,
                                 filter: UnsafePointer<Float>, outputChannels: Int, bias: UnsafePointer<Float>,
                                 activation: FusedActivation, residual: UnsafePointer<Float>? = nil,
                                 slopes: UnsafePointer<Float>? = nil, output: UnsafeMutablePointer<Float>) {
        precondition(slopes == nil || activation == .none, "PReLU slopes replace the activation")
        let cout = outputChannels, chunk = chunkRows(outputChannels: cout)
        let chunks = (rows + chunk - 1) / chunk
        // Each chunk is its own GEMM of fixed shape (OpenBLAS on one thread), so the result does
        // not depend on how chunks are spread over threads.
        let body = { (index: Int) in
            let start = index * chunk
            let m = Swift.min(chunk, rows - start)
            let out = output + start * cout
            if activation == .none {
                // Prefill with bias (+ residual) and accumulate: no pass after the GEMM.
                for r in 0..<m {
                    let o = out + r * cout
                    if let residual {
                        let res = residual + (start + r) * cout
                        for c in 0..<cout { o[c] = res[c] + bias[c] }
                    } else {
                        for c in 0..<cout { o[c] = bias[c] }
                    }
                }
                Tensor.gemm(transposeA: false, transposeB: false, m: m, n: cout, k: inputChannels,
                            a: input + start * inputChannels, lda: inputChannels, b: filter, ldb: cout,
                            beta: 1, c: out, ldc: cout)
                if let slopes { prelu(out, rows: m, channels: cout, slopes: slopes, output: out) }
            } else {
                Tensor.gemm(transposeA: false, transposeB: false, m: m, n: cout, k: inputChannels,
                            a: input + start * inputChannels, lda: inputChannels, b: filter, ldb: cout,
                            beta: 0, c: out, ldc: cout)
                epilogue(out, rows: m, channels: cout, bias: bias,
                         residual: residual.map { $0 + start * cout }, activation: activation)
            }
        }
        ComputeThreads.prepareBLAS()
        parallelFor(chunks, body)
    }

    /// A 1×1 convolution with weights packed once: output = act(input · W + bias [+ residual]),
    /// or PReLU with `slopes` (then `activation` must be `.none`). Each output is the bias plus
    /// the products in input-channel order, in registers until the activation (`CKernels`), so
    /// results do not depend on `rows` or on how rows are spread over threads.
    public static func pointwise(input: UnsafePointer<Float>, rows: Int, weights: PackedWeights,
                                 bias: UnsafePointer<Float>, activation: FusedActivation,
                                 residual: UnsafePointer<Float>? = nil, slopes: UnsafePointer<Float>? = nil,
                                 output: UnsafeMutablePointer<Float>) {
        precondition(slopes == nil || activation == .none, "PReLU slopes replace the activation")
        let k = weights.rows, cout = weights.columns
        let upper: Float = activation == .relu6 ? 6 : .infinity
        let lower: Float = activation == .none ? -.infinity : 0
        // About 96 rows a chunk, in chunks of near-equal size: enough to share out among threads,
        // small enough to stay in cache. When there are fewer chunks than pieces for every thread
        // (a small feature map), the columns are split too, in groups of 32 (each element gets
        // the same tile, and bits, however the work is split).
        let threads = ComputeThreads.isInsideParallelJob ? 1 : ComputeThreads.count
        var chunks = (rows + 95) / 96
        // Few chunks: a multiple of the thread count, so no thread waits for another's last one.
        if threads > 1 && chunks < 8 * threads { chunks = Swift.min(rows, (chunks + threads - 1) / threads * threads) }
        let groups = (cout + 31) / 32
        let splits = Swift.min(groups, Swift.max(1, (4 * threads + chunks - 1) / chunks))
        parallelFor(chunks * splits) { index in
            let chunk = index / splits, split = index % splits
            let start = chunk * rows / chunks, m = (chunk + 1) * rows / chunks - start
            let first = split * groups / splits * 32, last = Swift.min(cout, (split + 1) * groups / splits * 32)
            coach_packed_gemm_columns(input + start * k, Int32(m), Int32(k), weights.storage, Int32(cout), Int32(first),
                                      Int32(last - first), bias, residual.map { $0 + start * cout }, slopes, lower, upper,
                                      output + start * cout)
        }
    }

    /// A k×k convolution (weights: the HWIO filter packed as [kh·kw·Cin, Cout]) via im2col and the
    /// packed GEMM, with fused bias and activation (or PReLU `slopes`). `workspace` holds
    /// `convolutionWorkspace(geometry:)` floats.
    public static func convolution(input: UnsafePointer<Float>, geometry g: ConvolutionGeometry, weights: PackedWeights,
                                   bias: UnsafePointer<Float>, activation: FusedActivation,
                                   slopes: UnsafePointer<Float>? = nil, workspace: UnsafeMutablePointer<Float>,
                                   output: UnsafeMutablePointer<Float>) {
        let k = weights.rows, cout = weights.columns, pixels = g.outputPixels
        precondition(k == g.kernelHeight * g.kernelWidth * g.channels, "packed filter does not match the geometry")
        let upper: Float = activation == .relu6 ? 6 : .infinity
        let lower: Float = activation == .none ? -.infinity : 0
        if coach_direct_convolution_available(Int32(g.channels)) != 0 {
            // Few input channels (a stem): each output row straight from the image, the same sums
            // as the unfolded GEMM's, without writing the unfolded rows.
            parallelFor(g.batch * g.outputHeight) { row in
                let n = row / g.outputHeight, oy = row % g.outputHeight
                coach_direct_convolution_row(input + n * g.inputHeight * g.inputWidth * g.channels, Int32(g.inputHeight),
                                             Int32(g.inputWidth), Int32(g.channels), Int32(g.kernelHeight), Int32(g.kernelWidth),
                                             Int32(g.strideWidth), Int32(g.padLeft), Int32(oy * g.strideHeight - g.padTop),
                                             Int32(g.outputWidth), weights.storage, Int32(cout), bias, slopes, lower, upper,
                                             output + row * g.outputWidth * cout)
            }
            return
        }
        // Each chunk of about 96 output pixels is unfolded into its own rows of the workspace and
        // multiplied while they are in cache.
        let chunks = (pixels + 95) / 96
        for n in 0..<g.batch {
            let image = input + n * g.inputHeight * g.inputWidth * g.channels
            let out = output + n * pixels * cout
            parallelFor(chunks) { index in
                let start = index * pixels / chunks, m = (index + 1) * pixels / chunks - start
                let columns = workspace + start * k
                coach_im2col(image, Int32(g.inputHeight), Int32(g.inputWidth), Int32(g.channels), Int32(g.kernelHeight),
                             Int32(g.kernelWidth), Int32(g.strideHeight), Int32(g.strideWidth), Int32(g.padTop),
                             Int32(g.padLeft), Int32(g.outputWidth), Int32(start), Int32(m), columns)
                coach_packed_gemm(columns, Int32(m), Int32(k), weights.storage, Int32(cout), bias, nil, slopes,
                                  lower, upper, out + start * cout)
            }
        }
    }

    /// out = act(out + bias [+ residual]) over rows × channels, vectorised.
    @inline(__always)
    static func epilogue(_ out: UnsafeMutablePointer<Float>, rows: Int, channels: Int, bias: UnsafePointer<Float>,
                         residual: UnsafePointer<Float>?, activation: FusedActivation) {
        let upper: Float = activation == .relu6 ? 6 : .infinity
        let lower: Float = activation == .none ? -.infinity : 0
        for r in 0..<rows {
            let o = out + r * channels
            if let residual {
                let res = residual + r * channels
                for c in 0..<channels { o[c] = Swift.min(Swift.max(o[c] + bias[c] + res[c], lower), upper) }
            } else {
                for c in 0..<channels { o[c] = Swift.min(Swift.max(o[c] + bias[c], lower), upper) }
            }
        }
    }

    /// PReLU over rows × channels: max(v, 0) + slope · min(v, 0), branch-free (the sign of
    /// activations is unpredictable). In place when `output` is `input`.
    @inline(__always)
    public static func prelu(_ input: UnsafePointer<Float>, rows: Int, channels: Int, slopes: UnsafePointer<Float>,
                             output: UnsafeMutablePointer<Float>) {
        for r in 0..<rows {
            let x = input + r * channels, o = output + r * channels
            for c in 0..<channels { let v = x[c]; o[c] = Swift.max(v, 0) + slopes[c] * Swift.min(v, 0) }
        }
    }

    /// Max pooling: each output is the largest in-bounds input of its window (padding never
    /// wins; a window wholly inside the padding gives 0), as `Tensor.maxPool2D` computes it.
    public static func maxPool(input: UnsafePointer<Float>, geometry g: ConvolutionGeometry, output: UnsafeMutablePointer<Float>) {
        let C = g.channels
        parallelFor(g.batch * g.outputHeight, minimumWork: 8) { row in
            let n = row / g.outputHeight, oy = row % g.outputHeight
            let y0 = oy * g.strideHeight - g.padTop
            let ys = Swift.max(0, y0)..<Swift.min(g.inputHeight, y0 + g.kernelHeight)
            for ox in 0..<g.outputWidth {
                let x0 = ox * g.strideWidth - g.padLeft
                let xs = Swift.max(0, x0)..<Swift.min(g.inputWidth, x0 + g.kernelWidth)
                let o = output + (row * g.outputWidth + ox) * C
                o.update(repeating: -.infinity, count: C)
                for y in ys {
                    for x in xs {
                        let p = input + ((n * g.inputHeight + y) * g.inputWidth + x) * C
                        for c in 0..<C { o[c] = p[c] > o[c] ? p[c] : o[c] }
                    }
                }
                for c in 0..<C where o[c] == -.infinity { o[c] = 0 }
            }
        }
    }

    /// Bilinear resizing of NHWC images as TensorFlow's ResizeBilinear computes it: source
    /// coordinate `(dst + ½)·scale − ½` with half-pixel centres, `dst·scale` otherwise; scale
    /// `(in − 1)/(out − 1)` when aligning corners, `in/out` otherwise; neighbours clamped to the image.
    public static func resizeBilinear(input: UnsafePointer<Float>, batch n: Int, height inH: Int, width inW: Int, channels c: Int,
                                      outputHeight height: Int, outputWidth width: Int, alignCorners: Bool, halfPixelCenters: Bool,
                                      output: UnsafeMutablePointer<Float>) {
        func axis(_ outSize: Int, _ inSize: Int) -> (lower: [Int], upper: [Int], weight: [Float]) {
            let scale: Float = alignCorners && outSize > 1 ? Float(inSize - 1) / Float(outSize - 1) : Float(inSize) / Float(outSize)
            var lower = [Int](), upper = [Int](), weight = [Float]()
            for d in 0..<outSize {
                let position = halfPixelCenters ? (Float(d) + 0.5) * scale - 0.5 : Float(d) * scale
                let floor = position.rounded(.down)
                lower.append(Swift.max(Int(floor), 0))
                upper.append(Swift.min(Int(position.rounded(.up)), inSize - 1))
                weight.append(position - floor)
            }
            return (lower, upper, weight)
        }
        let ys = axis(height, inH), xs = axis(width, inW)
        parallelFor(n * height, minimumWork: 8) { row in
            let image = row / height, y = row % height
            let top = input + (image * inH + ys.lower[y]) * inW * c
            let bottom = input + (image * inH + ys.upper[y]) * inW * c
            let dy = ys.weight[y]
            let destination = output + row * width * c
            for x in 0..<width {
                let left = xs.lower[x] * c, right = xs.upper[x] * c, dx = xs.weight[x]
                let o = destination + x * c
                for k in 0..<c {
                    let t = top[left + k] + (top[right + k] - top[left + k]) * dx
                    let b = bottom[left + k] + (bottom[right + k] - bottom[left + k]) * dx
                    o[k] = t + (b - t) * dy
                }
            }
        }
    }

    /// The mean of each image's `pixels` rows of `channels` (global average pooling of NHWC):
    /// output [batch, channels], summed in pixel order.
    public static func spatialMean(_ input: UnsafePointer<Float>, batch: Int, pixels: Int, channels: Int,
                                   output: UnsafeMutablePointer<Float>) {
        for n in 0..<batch {
            let o = output + n * channels
            o.update(repeating: 0, count: channels)
            for p in 0..<pixels {
                let row = input + (n * pixels + p) * channels
                for c in 0..<channels { o[c] += row[c] }
            }
            let scale = 1 / Float(Swift.max(pixels, 1))
            for c in 0..<channels { o[c] *= scale }
        }
    }

    /// Depthwise convolution (filter [kh, kw, C]) with fused bias and activation.
    public static func depthwise(input: UnsafePointer<Float>, geometry: ConvolutionGeometry,
                                 filter: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                 activation: FusedActivation, output: UnsafeMutablePointer<Float>) {
        Tensor.depthwiseForward(input, filter, bias, geometry, activation, output)
    }

    /// An HWIO filter [kh, kw, Cin, Cout] laid out [Cout, kh, kw, Cin] for `narrowConvolution`.
    public static func layOutNarrowFilter(_ filter: UnsafePointer<Float>, kernelHeight kh: Int, kernelWidth kw: Int,
                                          inputChannels cin: Int, outputChannels cout: Int, into laidOut: UnsafeMutablePointer<Float>) {
        for o in 0..<cout { for y in 0..<kh { for x in 0..<kw { for i in 0..<cin {
            laidOut[((o * kh + y) * kw + x) * cin + i] = filter[((y * kw + x) * cin + i) * cout + o]
        } } } }
    }

    /// A k×k convolution to very few output channels (a segmentation head), computed directly:
    /// each output is one dot product over the window's taps × input channels, accumulated in
    /// eight lanes and summed once. `filter` is laid out by `layOutNarrowFilter`.
    public static func narrowConvolution(input: UnsafePointer<Float>, geometry g: ConvolutionGeometry, filter: UnsafePointer<Float>,
                                         outputChannels cout: Int, bias: UnsafePointer<Float>, activation: FusedActivation,
                                         output: UnsafeMutablePointer<Float>) {
        let cin = g.channels, vectorEnd = cin - cin % 8
        let upper: Float = activation == .relu6 ? 6 : .infinity, lower: Float = activation == .none ? -.infinity : 0
        parallelFor(g.batch * g.outputHeight) { row in
            let n = row / g.outputHeight, oy = row % g.outputHeight
            let y0 = oy * g.strideHeight - g.padTop
            let ys = Swift.max(0, -y0)..<Swift.min(g.kernelHeight, g.inputHeight - y0)
            for ox in 0..<g.outputWidth {
                let x0 = ox * g.strideWidth - g.padLeft
                let xs = Swift.max(0, -x0)..<Swift.min(g.kernelWidth, g.inputWidth - x0)
                for o in 0..<cout {
                    var lanes = SIMD8<Float>(), rest: Float = 0
                    for ky in ys {
                        for kx in xs {
                            let a = input + ((n * g.inputHeight + y0 + ky) * g.inputWidth + x0 + kx) * cin
                            let w = filter + ((o * g.kernelHeight + ky) * g.kernelWidth + kx) * cin
                            var i = 0
                            while i < vectorEnd {
                                lanes += UnsafeRawPointer(a + i).loadUnaligned(as: SIMD8<Float>.self)
                                    * UnsafeRawPointer(w + i).loadUnaligned(as: SIMD8<Float>.self)
                                i &+= 8
                            }
                            while i < cin { rest += a[i] * w[i]; i &+= 1 }
                        }
                    }
                    let sum = bias[o] + lanes.sum() + rest
                    output[(row * g.outputWidth + ox) * cout + o] = Swift.min(Swift.max(sum, lower), upper)
                }
            }
        }
    }

    /// The workspace (in floats) `convolution` needs for one chunk of output rows.
    public static func convolutionWorkspace(geometry g: ConvolutionGeometry) -> Int {
        g.outputPixels * g.kernelHeight * g.kernelWidth * g.channels
    }

    /// A k×k convolution (HWIO filter) via im2col + GEMM per image, with fused bias and
    /// activation. `workspace` holds `convolutionWorkspace(geometry:)` floats.
    public static func convolution(input: UnsafePointer<Float>, geometry g: ConvolutionGeometry,
                                   filter: UnsafePointer<Float>, outputChannels: Int, bias: UnsafePointer<Float>,
                                   activation: FusedActivation, slopes: UnsafePointer<Float>? = nil,
                                   workspace: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>) {
        let k = g.kernelHeight * g.kernelWidth * g.channels
        for n in 0..<g.batch {
            Tensor.im2col(input, image: n, g, into: workspace)
            pointwise(input: workspace, rows: g.outputPixels, inputChannels: k, filter: filter,
                      outputChannels: outputChannels, bias: bias, activation: activation, slopes: slopes,
                      output: output + n * g.outputPixels * outputChannels)
        }
    }
}
