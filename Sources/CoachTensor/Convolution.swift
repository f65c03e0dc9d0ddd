/// How a convolution or pooling window treats the border.
public enum Padding: Equatable, Sendable {
    /// No padding: only windows fully inside the input.
    case valid
    /// TensorFlow SAME: output = ceil(input / stride); the odd extra pixel goes bottom/right.
    case same
    /// Explicit zero padding on each side.
    case explicit(top: Int, bottom: Int, left: Int, right: Int)

    /// Symmetric explicit padding of `p` on every side.
    public static func symmetric(_ p: Int) -> Padding { .explicit(top: p, bottom: p, left: p, right: p) }

    /// (before, after) padding of one spatial axis of `size` for kernel `k` and stride `s`.
    public func amounts(size: Int, kernel k: Int, stride s: Int, vertical: Bool) -> (Int, Int) {
        switch self {
        case .valid: return (0, 0)
        case .same:
            let out = (size + s - 1) / s
            let total = Swift.max((out - 1) * s + k - size, 0)
            return (total / 2, total - total / 2)
        case let .explicit(top, bottom, left, right):
            return vertical ? (top, bottom) : (left, right)
        }
    }
}

/// The activation fused into a producing kernel.
public enum FusedActivation: Sendable {
    case none, relu, relu6

    @inline(__always)
    func apply(_ x: Float) -> Float {
        switch self {
        case .none: return x
        case .relu: return Swift.max(x, 0)
        case .relu6: return Swift.min(Swift.max(x, 0), 6)
        }
    }
}

/// The sizes of one 2-D convolution or pooling window over an NHWC input.
public struct ConvolutionGeometry: Equatable, Sendable {
    public let batch, inputHeight, inputWidth, channels: Int
    public let kernelHeight, kernelWidth, strideHeight, strideWidth: Int
    public let padTop, padBottom, padLeft, padRight: Int
    public let outputHeight, outputWidth: Int

    /// The geometry for input shape [N, H, W, C] and the given window.
    public init(inputShape: [Int], kernelHeight: Int, kernelWidth: Int,
                strideHeight: Int, strideWidth: Int, padding: Padding) {
        precondition(inputShape.count == 4, "NHWC input expected, got shape \(inputShape)")
        precondition(kernelHeight > 0 && kernelWidth > 0 && strideHeight > 0 && strideWidth > 0,
                     "kernel and stride must be positive")
        batch = inputShape[0]; inputHeight = inputShape[1]; inputWidth = inputShape[2]; channels = inputShape[3]
        self.kernelHeight = kernelHeight; self.kernelWidth = kernelWidth
        self.strideHeight = strideHeight; self.strideWidth = strideWidth
        (padTop, padBottom) = padding.amounts(size: inputHeight, kernel: kernelHeight, stride: strideHeight, vertical: true)
        (padLeft, padRight) = padding.amounts(size: inputWidth, kernel: kernelWidth, stride: strideWidth, vertical: false)
        outputHeight = (inputHeight + padTop + padBottom - kernelHeight) / strideHeight + 1
        outputWidth = (inputWidth + padLeft + padRight - kernelWidth) / strideWidth + 1
        precondition(outputHeight > 0 && outputWidth > 0,
                     "window \(kernelHeight)×\(kernelWidth) does not fit input \(inputShape) with padding \(padding)")
    }

    /// Output pixels per image.
    public var outputPixels: Int { outputHeight * outputWidth }

    /// True when the window is a plain per-pixel product (1×1, stride 1, no padding).
    public var isPointwise: Bool {
        kernelHeight == 1 && kernelWidth == 1 && strideHeight == 1 && strideWidth == 1
            && padTop == 0 && padBottom == 0 && padLeft == 0 && padRight == 0
    }
}

extension Tensor {
    /// Unfolds image `n` of an NHWC input into rows of [outputPixels, kh·kw·C] (zero padding).
    static func im2col(_ input: UnsafePointer<Float>, image n: Int, _ g: ConvolutionGeometry,
                       into cols: UnsafeMutablePointer<Float>) {
        let C = g.channels, rowLength = g.kernelHeight * g.kernelWidth * C
        let imageBase = n * g.inputHeight * g.inputWidth * C
        for oy in 0..<g.outputHeight {
            for ox in 0..<g.outputWidth {
                var dst = cols + (oy * g.outputWidth + ox) * rowLength
                for ky in 0..<g.kernelHeight {
                    let iy = oy * g.strideHeight - g.padTop + ky
                    for kx in 0..<g.kernelWidth {
                        let ix = ox * g.strideWidth - g.padLeft + kx
                        if iy < 0 || iy >= g.inputHeight || ix < 0 || ix >= g.inputWidth {
                            dst.update(repeating: 0, count: C)
                        } else {
                            dst.update(from: input + imageBase + (iy * g.inputWidth + ix) * C, count: C)
                        }
                        dst += C
                    }
                }
            }
        }
    }

    /// Folds rows of [outputPixels, kh·kw·C] back onto image `n`, accumulating (im2col's adjoint).
    static func col2im(_ cols: UnsafePointer<Float>, image n: Int, _ g: ConvolutionGeometry,
                       into input: UnsafeMutablePointer<Float>) {
        let C = g.channels, rowLength = g.kernelHeight * g.kernelWidth * C
        let imageBase = n * g.inputHeight * g.inputWidth * C
        for oy in 0..<g.outputHeight {
            for ox in 0..<g.outputWidth {
                var src = cols + (oy * g.outputWidth + ox) * rowLength
                for ky in 0..<g.kernelHeight {
                    let iy = oy * g.strideHeight - g.padTop + ky
                    for kx in 0..<g.kernelWidth {
                        let ix = ox * g.strideWidth - g.padLeft + kx
                        if iy >= 0 && iy < g.inputHeight && ix >= 0 && ix < g.inputWidth {
                            let dst = input + imageBase + (iy * g.inputWidth + ix) * C
                            for c in 0..<C { dst[c] += src[c] }
                        }
                        src += C
                    }
                }
            }
        }
    }

    /// Adds `bias` per channel and applies `activation` to rows of `channels` values, in place.
    static func applyBiasActivation(_ p: UnsafeMutablePointer<Float>, rows: Int, channels: Int,
                                    bias: UnsafePointer<Float>?, activation: FusedActivation) {
        if bias == nil && activation == .none { return }
        parallelFor(rows, minimumWork: 4096) { r in
            let row = p + r * channels
            if let bias {
                switch activation {
                case .none: for c in 0..<channels { row[c] += bias[c] }
                case .relu: for c in 0..<channels { row[c] = Swift.max(row[c] + bias[c], 0) }
                case .relu6: for c in 0..<channels { row[c] = Swift.min(Swift.max(row[c] + bias[c], 0), 6) }
                }
            } else {
                for c in 0..<channels { row[c] = activation.apply(row[c]) }
            }
        }
    }

    /// 2-D convolution of an NHWC input with an HWIO filter [kh, kw, Cin, Cout].
    ///
    /// A 1×1 stride-1 convolution is one GEMM over [N·H·W, Cin]; other windows unfold
    /// (im2col) and multiply. `bias` [Cout] and `activation` are fused into the output pass.
    public static func conv2D(_ input: Tensor, filter: Tensor, bias: Tensor? = nil,
                              stride: (Int, Int) = (1, 1), padding: Padding = .valid,
                              activation: FusedActivation = .none) -> Tensor {
        precondition(filter.rank == 4, "conv2D filter must be [kh, kw, Cin, Cout], got \(filter.shape)")
        let g = ConvolutionGeometry(inputShape: input.shape, kernelHeight: filter.shape[0],
                                    kernelWidth: filter.shape[1], strideHeight: stride.0,
                                    strideWidth: stride.1, padding: padding)
        precondition(filter.shape[2] == g.channels,
                     "conv2D filter expects \(filter.shape[2]) input channels, input has \(g.channels)")
        let outC = filter.shape[3]
        if let bias { precondition(bias.shape == [outC], "conv2D bias must be [\(outC)], got \(bias.shape)") }
        let k = g.kernelHeight * g.kernelWidth * g.channels
        let outShape = [g.batch, g.outputHeight, g.outputWidth, outC]
        return Tensor(shape: outShape) { out in
            input.withUnsafeBufferPointer { pin in
                filter.withUnsafeBufferPointer { pw in
                    let o = out.baseAddress!
                    if g.isPointwise {
                        gemm(transposeA: false, transposeB: false, m: g.batch * g.outputPixels, n: outC,
                             k: k, a: pin.baseAddress!, lda: k, b: pw.baseAddress!, ldb: outC, c: o, ldc: outC)
                    } else {
                        let cols = UnsafeMutablePointer<Float>.allocate(capacity: g.outputPixels * k)
                        defer { cols.deallocate() }
                        for n in 0..<g.batch {
                            im2col(pin.baseAddress!, image: n, g, into: cols)
                            gemm(transposeA: false, transposeB: false, m: g.outputPixels, n: outC, k: k,
                                 a: cols, lda: k, b: pw.baseAddress!, ldb: outC,
                                 c: o + n * g.outputPixels * outC, ldc: outC)
                        }
                    }
                    if let bias {
                        bias.withUnsafeBufferPointer { pb in
                            applyBiasActivation(o, rows: out.count / outC, channels: outC,
                                                bias: pb.baseAddress!, activation: activation)
                        }
                    } else {
                        applyBiasActivation(o, rows: out.count / Swift.max(outC, 1), channels: outC,
                                            bias: nil, activation: activation)
                    }
                }
            }
        }
    }

    /// The gradient of `conv2D` with respect to its input.
    public static func conv2DBackwardInput(_ outputGradient: Tensor, filter: Tensor, inputShape: [Int],
                                           stride: (Int, Int), padding: Padding) -> Tensor {
        let g = ConvolutionGeometry(inputShape: inputShape, kernelHeight: filter.shape[0],
                                    kernelWidth: filter.shape[1], strideHeight: stride.0,
                                    strideWidth: stride.1, padding: padding)
        let outC = filter.shape[3], k = g.kernelHeight * g.kernelWidth * g.channels
        var result = Tensor.zeros(inputShape)
        result.withUnsafeMutableBufferPointer { pin in
            outputGradient.withUnsafeBufferPointer { pg in
                filter.withUnsafeBufferPointer { pw in
                    if g.isPointwise {
                        gemm(transposeA: false, transposeB: true, m: g.batch * g.outputPixels, n: k, k: outC,
                             a: pg.baseAddress!, lda: outC, b: pw.baseAddress!, ldb: outC,
                             c: pin.baseAddress!, ldc: k)
                        return
                    }
                    let cols = UnsafeMutablePointer<Float>.allocate(capacity: g.outputPixels * k)
                    defer { cols.deallocate() }
                    for n in 0..<g.batch {
                        gemm(transposeA: false, transposeB: true, m: g.outputPixels, n: k, k: outC,
                             a: pg.baseAddress! + n * g.outputPixels * outC, lda: outC,
                             b: pw.baseAddress!, ldb: outC, c: cols, ldc: k)
                        col2im(cols, image: n, g, into: pin.baseAddress!)
                    }
                }
            }
        }
        return result
    }

    /// The gradient of `conv2D` with respect to its filter [kh, kw, Cin, Cout].
    public static func conv2DBackwardFilter(_ outputGradient: Tensor, input: Tensor, filterShape: [Int],
                                            stride: (Int, Int), padding: Padding) -> Tensor {
        let g = ConvolutionGeometry(inputShape: input.shape, kernelHeight: filterShape[0],
                                    kernelWidth: filterShape[1], strideHeight: stride.0,
                                    strideWidth: stride.1, padding: padding)
        let outC = filterShape[3], k = g.kernelHeight * g.kernelWidth * g.channels
        var result = Tensor.zeros(filterShape)
        result.withUnsafeMutableBufferPointer { pw in
            outputGradient.withUnsafeBufferPointer { pg in
                input.withUnsafeBufferPointer { pin in
                    if g.isPointwise {
                        gemm(transposeA: true, transposeB: false, m: k, n: outC, k: g.batch * g.outputPixels,
                             a: pin.baseAddress!, lda: k, b: pg.baseAddress!, ldb: outC,
                             c: pw.baseAddress!, ldc: outC)
                        return
                    }
                    let cols = UnsafeMutablePointer<Float>.allocate(capacity: g.outputPixels * k)
                    defer { cols.deallocate() }
                    for n in 0..<g.batch {
                        im2col(pin.baseAddress!, image: n, g, into: cols)
                        gemm(transposeA: true, transposeB: false, m: k, n: outC, k: g.outputPixels,
                             a: cols, lda: k, b: pg.baseAddress! + n * g.outputPixels * outC, ldb: outC,
                             beta: n == 0 ? 0 : 1, c: pw.baseAddress!, ldc: outC)
                    }
                }
            }
        }
        return result
    }

    /// 1-D convolution over time: input [N, T, Cin], filter [k, Cin, Cout] → [N, T', Cout].
    ///
    /// `padding` applies to the time axis (`.same`, `.valid`, or explicit `top`/`bottom` as
    /// before/after); implemented as a 2-D convolution of height 1.
    public static func conv1D(_ input: Tensor, filter: Tensor, bias: Tensor? = nil, stride: Int = 1,
                              padding: Padding = .valid, activation: FusedActivation = .none) -> Tensor {
        precondition(input.rank == 3 && filter.rank == 3, "conv1D needs [N, T, C] input and [k, Cin, Cout] filter")
        let y = conv2D(input.reshaped(to: [input.shape[0], input.shape[1], 1, input.shape[2]]),
                       filter: filter.reshaped(to: [filter.shape[0], 1, filter.shape[1], filter.shape[2]]),
                       bias: bias, stride: (stride, 1), padding: padding.timeOnly, activation: activation)
        return y.reshaped(to: [y.shape[0], y.shape[1], y.shape[3]])
    }
}

extension Padding {
    /// This padding applied to the time (height) axis only, for 1-D convolutions.
    public var timeOnly: Padding {
        switch self {
        case .valid: return .valid
        case .same: return .same  // width 1 with kernel 1 and stride 1 needs no padding
        case let .explicit(top, bottom, _, _): return .explicit(top: top, bottom: bottom, left: 0, right: 0)
        }
    }
}

extension Tensor {
    /// A 1×1 convolution plus bias plus a residual input, fused: the output buffer starts
    /// as `residual + bias` and the GEMM accumulates onto it (beta = 1), so the sum costs
    /// no extra pass. input [N, H, W, Cin], filter [1, 1, Cin, Cout], residual [N, H, W, Cout].
    public static func pointwiseConvolution(_ input: Tensor, filter: Tensor, bias: Tensor, residual: Tensor) -> Tensor {
        precondition(input.rank == 4 && filter.rank == 4 && filter.shape[0] == 1 && filter.shape[1] == 1,
                     "pointwiseConvolution needs NHWC input and a [1, 1, Cin, Cout] filter")
        let cin = filter.shape[2], cout = filter.shape[3]
        let rows = input.count / cin
        precondition(residual.shape == Array(input.shape.dropLast()) + [cout], "residual shape \(residual.shape) does not match")
        var out = residual
        out.withUnsafeMutableBufferPointer { po in
            bias.withUnsafeBufferPointer { pb in
                for r in 0..<rows { for c in 0..<cout { po[r * cout + c] += pb[c] } }
            }
            input.withUnsafeBufferPointer { pi in
                filter.withUnsafeBufferPointer { pw in
                    gemm(transposeA: false, transposeB: false, m: rows, n: cout, k: cin,
                         a: pi.baseAddress!, lda: cin, b: pw.baseAddress!, ldb: cout,
                         beta: 1, c: po.baseAddress!, ldc: cout)
                }
            }
        }
        return out
    }
}
