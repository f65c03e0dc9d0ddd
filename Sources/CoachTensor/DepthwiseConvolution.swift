import CKernels

/// Depthwise 2-D convolution (channel multiplier 1): the forward pass in C kernels chosen by CPU features.
extension Tensor {
    /// Depthwise convolution of an NHWC input with a filter [kh, kw, C]: each channel is
    /// filtered by its own kh×kw kernel. `bias` [C] and `activation` are fused.
    public static func depthwiseConv2D(_ input: Tensor, filter: Tensor, bias: Tensor? = nil,
                                       stride: (Int, Int) = (1, 1), padding: Padding = .valid,
                                       activation: FusedActivation = .none) -> Tensor {
        precondition(filter.rank == 3, "depthwise filter must be [kh, kw, C], got \(filter.shape)")
        let g = ConvolutionGeometry(inputShape: input.shape, kernelHeight: filter.shape[0],
                                    kernelWidth: filter.shape[1], strideHeight: stride.0,
                                    strideWidth: stride.1, padding: padding)
        precondition(filter.shape[2] == g.channels, "depthwise filter has \(filter.shape[2]) channels, input \(g.channels)")
        if let bias { precondition(bias.shape == [g.channels], "depthwise bias must be [\(g.channels)]") }
        let zeroBias = [Float](repeating: 0, count: g.channels)
        return Tensor(shape: [g.batch, g.outputHeight, g.outputWidth, g.channels]) { out in
            input.withUnsafeBufferPointer { pin in
                filter.withUnsafeBufferPointer { pw in
                    (bias?.scalars ?? zeroBias).withUnsafeBufferPointer { pb in
                        depthwiseForward(pin.baseAddress!, pw.baseAddress!, pb.baseAddress!, g,
                                         activation, out.baseAddress!)
                    }
                }
            }
        }
    }

    static func depthwiseForward(_ input: UnsafePointer<Float>, _ filter: UnsafePointer<Float>,
                                 _ bias: UnsafePointer<Float>, _ g: ConvolutionGeometry,
                                 _ activation: FusedActivation, _ out: UnsafeMutablePointer<Float>) {
        let upper: Float = activation == .relu6 ? 6 : .infinity
        let lower: Float = activation == .none ? -.infinity : 0
        let imageSize = g.inputHeight * g.inputWidth * g.channels, rowSize = g.outputWidth * g.channels
        // One output row per call of the C kernel (AVX-512F, AVX2 or portable, by CPU): each
        // output is its bias plus its taps in order, whatever the split over threads. A small map
        // (fewer rows than four per thread) is split by groups of 64 channels too.
        let rows = g.batch * g.outputHeight
        let threads = ComputeThreads.isInsideParallelJob ? 1 : ComputeThreads.count
        let groups = (g.channels + 63) / 64
        let splits = rows >= 4 * threads ? 1 : Swift.min(groups, (4 * threads + rows - 1) / rows)
        parallelFor(rows * splits) { index in
            let row = index / splits, split = index % splits
            let n = row / g.outputHeight, oy = row % g.outputHeight
            let first = split * groups / splits * 64, last = Swift.min(g.channels, (split + 1) * groups / splits * 64)
            coach_depthwise_row(input + n * imageSize, Int32(g.inputHeight), Int32(g.inputWidth), Int32(g.channels),
                                Int32(first), Int32(last - first), filter, Int32(g.kernelHeight), Int32(g.kernelWidth),
                                Int32(g.strideWidth), Int32(g.padLeft), Int32(oy * g.strideHeight - g.padTop),
                                Int32(g.outputWidth), bias, lower, upper, out + row * rowSize)
        }
    }

    /// The gradient of `depthwiseConv2D` with respect to its input.
    public static func depthwiseConv2DBackwardInput(_ outputGradient: Tensor, filter: Tensor, inputShape: [Int],
                                                    stride: (Int, Int), padding: Padding) -> Tensor {
        let g = ConvolutionGeometry(inputShape: inputShape, kernelHeight: filter.shape[0],
                                    kernelWidth: filter.shape[1], strideHeight: stride.0,
                                    strideWidth: stride.1, padding: padding)
        let C = g.channels, W = g.inputWidth, H = g.inputHeight
        var result = Tensor.zeros(inputShape)
        result.withUnsafeMutableBufferPointer { pin in
            outputGradient.withUnsafeBufferPointer { pg in
                filter.withUnsafeBufferPointer { pw in
                    let dIn = pin.baseAddress!, dOut = pg.baseAddress!, w = pw.baseAddress!
                    parallelFor(g.batch) { n in
                        for oy in 0..<g.outputHeight {
                            let y0 = oy * g.strideHeight - g.padTop
                            for ox in 0..<g.outputWidth {
                                let x0 = ox * g.strideWidth - g.padLeft
                                let go = dOut + ((n * g.outputHeight + oy) * g.outputWidth + ox) * C
                                for ky in 0..<g.kernelHeight where y0 + ky >= 0 && y0 + ky < H {
                                    for kx in 0..<g.kernelWidth where x0 + kx >= 0 && x0 + kx < W {
                                        let gi = dIn + ((n * H + y0 + ky) * W + x0 + kx) * C
                                        let wk = w + (ky * g.kernelWidth + kx) * C
                                        for c in 0..<C { gi[c] += go[c] * wk[c] }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return result
    }

    /// The gradient of `depthwiseConv2D` with respect to its filter [kh, kw, C].
    public static func depthwiseConv2DBackwardFilter(_ outputGradient: Tensor, input: Tensor, filterShape: [Int],
                                                     stride: (Int, Int), padding: Padding) -> Tensor {
        let g = ConvolutionGeometry(inputShape: input.shape, kernelHeight: filterShape[0],
                                    kernelWidth: filterShape[1], strideHeight: stride.0,
                                    strideWidth: stride.1, padding: padding)
        let C = g.channels, W = g.inputWidth, H = g.inputHeight
        var result = Tensor.zeros(filterShape)
        result.withUnsafeMutableBufferPointer { pw in
            outputGradient.withUnsafeBufferPointer { pg in
                input.withUnsafeBufferPointer { pin in
                    let dW = pw.baseAddress!, dOut = pg.baseAddress!, x = pin.baseAddress!
                    for n in 0..<g.batch {
                        for oy in 0..<g.outputHeight {
                            let y0 = oy * g.strideHeight - g.padTop
                            for ox in 0..<g.outputWidth {
                                let x0 = ox * g.strideWidth - g.padLeft
                                let go = dOut + ((n * g.outputHeight + oy) * g.outputWidth + ox) * C
                                for ky in 0..<g.kernelHeight where y0 + ky >= 0 && y0 + ky < H {
                                    for kx in 0..<g.kernelWidth where x0 + kx >= 0 && x0 + kx < W {
                                        let xi = x + ((n * H + y0 + ky) * W + x0 + kx) * C
                                        let wk = dW + (ky * g.kernelWidth + kx) * C
                                        for c in 0..<C { wk[c] += go[c] * xi[c] }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return result
    }
}
