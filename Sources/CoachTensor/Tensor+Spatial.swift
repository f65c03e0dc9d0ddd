import Foundation

/// Spatial rearrangements and resampling of NHWC feature maps.
extension Tensor {
    /// TensorFlow's DepthToSpace (DCR order): [N, H, W, C·b²] → [N, H·b, W·b, C], where
    /// `out[n, h·b + i, w·b + j, c] = in[n, h, w, (i·b + j)·C + c]`.
    public func depthToSpace(blockSize b: Int) -> Tensor {
        precondition(rank == 4 && b >= 1 && shape[3] % (b * b) == 0, "depthToSpace needs NHWC with channels divisible by \(b * b)")
        let n = shape[0], h = shape[1], w = shape[2], c = shape[3] / (b * b)
        return Tensor(shape: [n, h * b, w * b, c]) { out in
            withUnsafeBufferPointer { input in
                for image in 0..<n {
                    for y in 0..<h {
                        for x in 0..<w {
                            let source = ((image * h + y) * w + x) * c * b * b
                            for i in 0..<b {
                                for j in 0..<b {
                                    let target = ((image * h * b + y * b + i) * w * b + x * b + j) * c
                                    let from = source + (i * b + j) * c
                                    for k in 0..<c { out[target + k] = input[from + k] }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Bilinear resizing to `height`×`width` as TensorFlow's ResizeBilinear computes it: source
    /// coordinate `(dst + ½)·scale − ½` with half-pixel centres, `dst·scale` otherwise; scale
    /// `(in − 1)/(out − 1)` when aligning corners, `in/out` otherwise; neighbours clamped to the image.
    public func resizedBilinear(height: Int, width: Int, alignCorners: Bool = false, halfPixelCenters: Bool = true) -> Tensor {
        precondition(rank == 4 && height > 0 && width > 0, "resizedBilinear needs an NHWC tensor and a positive size")
        let n = shape[0], inH = shape[1], inW = shape[2], c = shape[3]
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
        return Tensor(shape: [n, height, width, c]) { out in
            withUnsafeBufferPointer { input in
                let source = input.baseAddress!, target = out.baseAddress!
                parallelFor(n * height, minimumWork: 8) { row in
                    let image = row / height, y = row % height
                    let top = source + (image * inH + ys.lower[y]) * inW * c
                    let bottom = source + (image * inH + ys.upper[y]) * inW * c
                    let dy = ys.weight[y]
                    let destination = target + row * width * c
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
        }
    }
}
