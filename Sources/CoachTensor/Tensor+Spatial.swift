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

    /// Bilinear resizing to `height`×`width` as TensorFlow's ResizeBilinear computes it
    /// (`Kernels.resizeBilinear`).
    public func resizedBilinear(height: Int, width: Int, alignCorners: Bool = false, halfPixelCenters: Bool = true) -> Tensor {
        precondition(rank == 4 && height > 0 && width > 0, "resizedBilinear needs an NHWC tensor and a positive size")
        let n = shape[0], inH = shape[1], inW = shape[2], c = shape[3]
        return Tensor(shape: [n, height, width, c]) { out in
            withUnsafeBufferPointer { input in
                Kernels.resizeBilinear(input: input.baseAddress!, batch: n, height: inH, width: inW, channels: c,
                                       outputHeight: height, outputWidth: width, alignCorners: alignCorners,
                                       halfPixelCenters: halfPixelCenters, output: out.baseAddress!)
            }
        }
    }
}
