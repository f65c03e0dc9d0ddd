/// Pointer-level inference kernels for networks that manage their own buffers (the
/// backbone): no allocation inside, bias and activation applied while the output is
/// still in cache.
///
/// All buffers are NHWC float32; callers guarantee sizes. These are the building blocks
/// behind `Tensor.conv2D` / `depthwiseConv2D` for code that must not allocate per layer.
public enum Kernels {
    /// Rows of a pointwise GEMM computed per chunk, so the chunk's output (≤ ~256 KiB)
    /// is still in L2 when the epilogue (bias, activation) runs over it.
    @inline(__always)
    static func chunkRows(outputChannels: Int) -> Int { Swift.max(32, 65_536 / Swift.max(outputChannels, 1)) }

    /// A 1×1 convolution over `rows` pixels: output = act(input · filter + bias [+ residual]).
    ///
    /// - Parameters:
    ///   - filter: [inputChannels, outputChannels] (an HWIO 1×1 filter).
    ///   - residual: added before the activation when given (same shape as the output).
    public static func pointwise(input: UnsafePointer<Float>, rows: Int, inputChannels: Int,
                                 filter: UnsafePointer<Float>, outputChannels: Int, bias: UnsafePointer<Float>,
                                 activation: FusedActivation, residual: UnsafePointer<Float>? = nil,
                                 output: UnsafeMutablePointer<Float>) {
        let cout = outputChannels, chunk = chunkRows(outputChannels: cout)
        let chunks = (rows + chunk - 1) / chunk
        // Each chunk is its own GEMM of fixed shape, so the result does not depend on how
        // chunks are spread over threads. Chunks run in parallel only when OpenBLAS is
        // single-threaded (otherwise its own threads already split each GEMM).
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
            } else {
                Tensor.gemm(transposeA: false, transposeB: false, m: m, n: cout, k: inputChannels,
                            a: input + start * inputChannels, lda: inputChannels, b: filter, ldb: cout,
                            beta: 0, c: out, ldc: cout)
                epilogue(out, rows: m, channels: cout, bias: bias,
                         residual: residual.map { $0 + start * cout }, activation: activation)
            }
        }
        if ComputeThreads.blasIsSingleThreaded {
            parallelFor(chunks, body)
        } else {
            for index in 0..<chunks { body(index) }
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

    /// Depthwise convolution (filter [kh, kw, C]) with fused bias and activation.
    public static func depthwise(input: UnsafePointer<Float>, geometry: ConvolutionGeometry,
                                 filter: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                 activation: FusedActivation, output: UnsafeMutablePointer<Float>) {
        Tensor.depthwiseForward(input, filter, bias, geometry, activation, output)
    }

    /// The workspace (in floats) `convolution` needs for one chunk of output rows.
    public static func convolutionWorkspace(geometry g: ConvolutionGeometry) -> Int {
        g.outputPixels * g.kernelHeight * g.kernelWidth * g.channels
    }

    /// A k×k convolution (HWIO filter) via im2col + GEMM per image, with fused bias and
    /// activation. `workspace` holds `convolutionWorkspace(geometry:)` floats.
    public static func convolution(input: UnsafePointer<Float>, geometry g: ConvolutionGeometry,
                                   filter: UnsafePointer<Float>, outputChannels: Int, bias: UnsafePointer<Float>,
                                   activation: FusedActivation, workspace: UnsafeMutablePointer<Float>,
                                   output: UnsafeMutablePointer<Float>) {
        let k = g.kernelHeight * g.kernelWidth * g.channels
        for n in 0..<g.batch {
            Tensor.im2col(input, image: n, g, into: workspace)
            pointwise(input: workspace, rows: g.outputPixels, inputChannels: k, filter: filter,
                      outputChannels: outputChannels, bias: bias, activation: activation,
                      output: output + n * g.outputPixels * outputChannels)
        }
    }
}
