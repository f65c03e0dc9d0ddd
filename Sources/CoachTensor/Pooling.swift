/// Average, max and global-average pooling over NHWC inputs.
extension Tensor {
    /// Visits every output position of a pooling window with the in-bounds input offsets.
    @inline(__always)
    private static func forEachWindow(_ g: ConvolutionGeometry,
                                      _ body: (_ outIndex: Int, _ inputPixels: [Int]) -> Void) {
        var pixels = [Int]()
        pixels.reserveCapacity(g.kernelHeight * g.kernelWidth)
        for n in 0..<g.batch {
            for oy in 0..<g.outputHeight {
                for ox in 0..<g.outputWidth {
                    pixels.removeAll(keepingCapacity: true)
                    for ky in 0..<g.kernelHeight {
                        let iy = oy * g.strideHeight - g.padTop + ky
                        if iy < 0 || iy >= g.inputHeight { continue }
                        for kx in 0..<g.kernelWidth {
                            let ix = ox * g.strideWidth - g.padLeft + kx
                            if ix < 0 || ix >= g.inputWidth { continue }
                            pixels.append((n * g.inputHeight + iy) * g.inputWidth + ix)
                        }
                    }
                    body((n * g.outputHeight + oy) * g.outputWidth + ox, pixels)
                }
            }
        }
    }

    /// Average pooling; padded positions are excluded from each average (TensorFlow's rule);
    /// a window wholly inside the padding yields 0.
    public static func averagePool2D(_ input: Tensor, kernel: (Int, Int), stride: (Int, Int),
                                     padding: Padding = .valid) -> Tensor {
        let g = ConvolutionGeometry(inputShape: input.shape, kernelHeight: kernel.0, kernelWidth: kernel.1,
                                    strideHeight: stride.0, strideWidth: stride.1, padding: padding)
        let C = g.channels
        return Tensor(shape: [g.batch, g.outputHeight, g.outputWidth, C]) { out in
            input.withUnsafeBufferPointer { p in
                forEachWindow(g) { o, pixels in
                    let inv = 1 / Float(Swift.max(pixels.count, 1))
                    for c in 0..<C {
                        var s: Float = 0
                        for px in pixels { s += p[px * C + c] }
                        out[o * C + c] = s * inv
                    }
                }
            }
        }
    }

    /// The gradient of `averagePool2D` with respect to its input.
    public static func averagePool2DBackward(_ outputGradient: Tensor, inputShape: [Int], kernel: (Int, Int),
                                             stride: (Int, Int), padding: Padding = .valid) -> Tensor {
        let g = ConvolutionGeometry(inputShape: inputShape, kernelHeight: kernel.0, kernelWidth: kernel.1,
                                    strideHeight: stride.0, strideWidth: stride.1, padding: padding)
        let C = g.channels
        var result = Tensor.zeros(inputShape)
        result.withUnsafeMutableBufferPointer { dx in
            outputGradient.withUnsafeBufferPointer { dy in
                forEachWindow(g) { o, pixels in
                    let inv = 1 / Float(Swift.max(pixels.count, 1))
                    for px in pixels { for c in 0..<C { dx[px * C + c] += dy[o * C + c] * inv } }
                }
            }
        }
        return result
    }

    /// Max pooling (a window wholly inside the padding yields 0); returns the pooled values and, per output element, the flat input
    /// index of its maximum (for the backward pass).
    public static func maxPool2D(_ input: Tensor, kernel: (Int, Int), stride: (Int, Int),
                                 padding: Padding = .valid) -> (values: Tensor, argmax: [Int]) {
        let g = ConvolutionGeometry(inputShape: input.shape, kernelHeight: kernel.0, kernelWidth: kernel.1,
                                    strideHeight: stride.0, strideWidth: stride.1, padding: padding)
        let C = g.channels
        var argmax = [Int](repeating: 0, count: g.batch * g.outputPixels * C)
        let values = Tensor(shape: [g.batch, g.outputHeight, g.outputWidth, C]) { out in
            input.withUnsafeBufferPointer { p in
                forEachWindow(g) { o, pixels in
                    for c in 0..<C {
                        // A window wholly inside the padding yields 0 and passes no gradient.
                        var best = -Float.infinity, bestIndex = -1
                        for px in pixels where p[px * C + c] > best { best = p[px * C + c]; bestIndex = px * C + c }
                        out[o * C + c] = bestIndex < 0 ? 0 : best
                        argmax[o * C + c] = bestIndex
                    }
                }
            }
        }
        return (values, argmax)
    }

    /// The gradient of `maxPool2D`: each output gradient flows to its argmax.
    public static func maxPool2DBackward(_ outputGradient: Tensor, argmax: [Int], inputShape: [Int]) -> Tensor {
        var result = Tensor.zeros(inputShape)
        result.withUnsafeMutableBufferPointer { dx in
            outputGradient.withUnsafeBufferPointer { dy in
                for (o, i) in argmax.enumerated() where i >= 0 { dx[i] += dy[o] }
            }
        }
        return result
    }

    /// Global average pooling: [N, H, W, C] → [N, C].
    public static func globalAveragePool(_ input: Tensor) -> Tensor {
        precondition(input.rank == 4, "globalAveragePool needs NHWC input, got \(input.shape)")
        return input.reshaped(to: [input.shape[0], input.shape[1] * input.shape[2], input.shape[3]])
            .mean(alongAxes: [1])
    }
}
