/// Depthwise 2-D convolution (channel multiplier 1) with SIMD kernels.
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
        let C = g.channels, W = g.inputWidth, H = g.inputHeight
        let KH = g.kernelHeight, KW = g.kernelWidth
        let upper: Float = activation == .relu6 ? 6 : .infinity
        let lower: Float = activation == .none ? -.infinity : 0
        parallelFor(g.batch * g.outputHeight) { row in
            let n = row / g.outputHeight, oy = row % g.outputHeight
            let image = input + n * H * W * C
            let y0 = oy * g.strideHeight - g.padTop
            let kyStart = Swift.max(0, -y0), kyEnd = Swift.min(KH, H - y0)
            let dstRow = out + (n * g.outputHeight + oy) * g.outputWidth * C
            // Output columns whose every tap is inside the image run four at a time
            // (each weight vector loaded once for four pixels); borders run one by one.
            let s = g.strideWidth
            let interiorStart = Swift.min(g.outputWidth, (g.padLeft + s - 1) / s)
            let interiorEnd = Swift.max(interiorStart, Swift.min(g.outputWidth, (W + g.padLeft - KW) / s + 1))
            var ox = 0
            while ox < g.outputWidth {
                if C % 8 == 0 && ox >= interiorStart && ox + 4 <= interiorEnd {
                    depthwiseQuad(image: image, filter: filter, bias: bias, dst: dstRow + ox * C, channels: C,
                                  rowStride: W * C, y0: y0, x0: ox * s - g.padLeft, stride: s,
                                  ky: kyStart..<kyEnd, kernelWidth: KW, lower: lower, upper: upper)
                    ox += 4
                    continue
                }
                let x0 = ox * s - g.padLeft
                let kxStart = Swift.max(0, -x0), kxEnd = Swift.min(KW, W - x0)
                depthwisePixel(image: image, filter: filter, bias: bias, dst: dstRow + ox * C, channels: C,
                               rowStride: W * C, y0: y0, x0: x0, ky: kyStart..<kyEnd, kx: kxStart..<kxEnd,
                               kernelWidth: KW, lower: lower, upper: upper)
                ox += 1
            }
        }
    }

    /// Four horizontally adjacent output pixels whose taps are all inside the image
    /// (columns x0, x0+s, x0+2s, x0+3s), eight channels at a time; C must be a multiple of 8.
    @inline(__always)
    static func depthwiseQuad(image: UnsafePointer<Float>, filter: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                              dst: UnsafeMutablePointer<Float>, channels C: Int, rowStride: Int, y0: Int, x0: Int,
                              stride s: Int, ky: Range<Int>, kernelWidth KW: Int, lower: Float, upper: Float) {
        let lo = SIMD8<Float>(repeating: lower), hi = SIMD8<Float>(repeating: upper)
        let step = s * C
        var c = 0
        while c < C {
            let b = UnsafeRawPointer(bias + c).loadUnaligned(as: SIMD8<Float>.self)
            var a0 = b, a1 = b, a2 = b, a3 = b
            var y = ky.lowerBound
            while y < ky.upperBound {
                var src = image + (y0 + y) * rowStride + x0 * C + c
                var w = filter + (y * KW) * C + c
                for _ in 0..<KW {
                    let wv = UnsafeRawPointer(w).loadUnaligned(as: SIMD8<Float>.self)
                    a0 += UnsafeRawPointer(src).loadUnaligned(as: SIMD8<Float>.self) * wv
                    a1 += UnsafeRawPointer(src + step).loadUnaligned(as: SIMD8<Float>.self) * wv
                    a2 += UnsafeRawPointer(src + 2 * step).loadUnaligned(as: SIMD8<Float>.self) * wv
                    a3 += UnsafeRawPointer(src + 3 * step).loadUnaligned(as: SIMD8<Float>.self) * wv
                    src += C
                    w += C
                }
                y &+= 1
            }
            a0.replace(with: lo, where: a0 .< lo); a0.replace(with: hi, where: a0 .> hi)
            a1.replace(with: lo, where: a1 .< lo); a1.replace(with: hi, where: a1 .> hi)
            a2.replace(with: lo, where: a2 .< lo); a2.replace(with: hi, where: a2 .> hi)
            a3.replace(with: lo, where: a3 .< lo); a3.replace(with: hi, where: a3 .> hi)
            UnsafeMutableRawPointer(dst + c).storeBytes(of: a0, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(dst + C + c).storeBytes(of: a1, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(dst + 2 * C + c).storeBytes(of: a2, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(dst + 3 * C + c).storeBytes(of: a3, as: SIMD8<Float>.self)
            c &+= 8
        }
    }

    /// One output pixel of a depthwise convolution over all channels, SIMD16 then SIMD4 then scalar.
    @inline(__always)
    static func depthwisePixel(image: UnsafePointer<Float>, filter: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                               dst: UnsafeMutablePointer<Float>, channels C: Int, rowStride: Int, y0: Int, x0: Int,
                               ky: Range<Int>, kx: Range<Int>, kernelWidth KW: Int, lower: Float, upper: Float) {
        let lo16 = SIMD16<Float>(repeating: lower), hi16 = SIMD16<Float>(repeating: upper)
        var c = 0
        while c + 16 <= C {
            var acc = UnsafeRawPointer(bias + c).loadUnaligned(as: SIMD16<Float>.self)
            var y = ky.lowerBound
            while y < ky.upperBound {
                let src = image + (y0 + y) * rowStride + (x0) * C + c
                let w = filter + (y * KW) * C + c
                var x = kx.lowerBound
                while x < kx.upperBound {
                    acc += UnsafeRawPointer(src + x * C).loadUnaligned(as: SIMD16<Float>.self)
                        * UnsafeRawPointer(w + x * C).loadUnaligned(as: SIMD16<Float>.self)
                    x &+= 1
                }
                y &+= 1
            }
            // replacing(with:where:) lowers to compare + blend; clamped(...) goes lane by lane.
            acc.replace(with: lo16, where: acc .< lo16)
            acc.replace(with: hi16, where: acc .> hi16)
            UnsafeMutableRawPointer(dst + c).storeBytes(of: acc, as: SIMD16<Float>.self)
            c &+= 16
        }
        let lo4 = SIMD4<Float>(repeating: lower), hi4 = SIMD4<Float>(repeating: upper)
        while c + 4 <= C {
            var acc = UnsafeRawPointer(bias + c).loadUnaligned(as: SIMD4<Float>.self)
            for y in ky {
                let src = image + (y0 + y) * rowStride + x0 * C + c
                let w = filter + (y * KW) * C + c
                for x in kx {
                    acc += UnsafeRawPointer(src + x * C).loadUnaligned(as: SIMD4<Float>.self)
                        * UnsafeRawPointer(w + x * C).loadUnaligned(as: SIMD4<Float>.self)
                }
            }
            acc.replace(with: lo4, where: acc .< lo4)
            acc.replace(with: hi4, where: acc .> hi4)
            UnsafeMutableRawPointer(dst + c).storeBytes(of: acc, as: SIMD4<Float>.self)
            c &+= 4
        }
        while c < C {
            var acc = bias[c]
            for y in ky {
                for x in kx { acc += image[(y0 + y) * rowStride + (x0 + x) * C + c] * filter[(y * KW + x) * C + c] }
            }
            dst[c] = Swift.min(Swift.max(acc, lower), upper)
            c &+= 1
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
