import Foundation

extension FloatImage {
    /// The image resampled through `transform` (which maps this image's coordinates to the
    /// output's) onto an `outputWidth × outputHeight` grid (default: this image's size).
    ///
    /// Each output pixel centre `(u + ½, v + ½)` is mapped back through the inverse
    /// transform and sampled bilinearly (pixel centres at `x + ½`); samples that fall
    /// outside the image read `fillValue` and are blended like any other neighbour, so edges
    /// fade smoothly into the fill. A pure mirror or integer shift reproduces the pixels
    /// exactly. There is no anti-aliasing: shrink an image with `resized(width:height:)`,
    /// not with a warp. A transform that cannot be inverted fills the whole output.
    public func warped(by transform: AffineTransform, outputWidth: Int? = nil, outputHeight: Int? = nil,
                       fillValue: Float = 127) -> FloatImage {
        let targetWidth = max(0, outputWidth ?? width), targetHeight = max(0, outputHeight ?? height)
        var output = [Float](repeating: fillValue, count: targetWidth * targetHeight * channels)
        guard let inverse = transform.inverted, width > 0, height > 0 else {
            return FloatImage(uncheckedWidth: targetWidth, height: targetHeight, channels: channels, values: output)
        }
        let channelCount = channels, sourceWidth = width, sourceHeight = height
        values.withUnsafeBufferPointer { sourceBuffer in
            output.withUnsafeMutableBufferPointer { targetBuffer in
                let source = sourceBuffer.baseAddress!, target = targetBuffer.baseAddress!
                @inline(__always) func sample(_ x: Int, _ y: Int, _ channel: Int) -> Float {
                    (x >= 0 && y >= 0 && x < sourceWidth && y < sourceHeight)
                        ? source[(y * sourceWidth + x) * channelCount + channel] : fillValue
                }
                for row in 0..<targetHeight {
                    let centerY = Double(row) + 0.5
                    // Source position (in pixel-index units) of this row's pixel centres.
                    let rowX = inverse.b * centerY + inverse.tx - 0.5
                    let rowY = inverse.d * centerY + inverse.ty - 0.5
                    let rowStart = target + row * targetWidth * channelCount
                    for column in 0..<targetWidth {
                        let centerX = Double(column) + 0.5
                        let sourceX = inverse.a * centerX + rowX, sourceY = inverse.c * centerX + rowY
                        let x0 = Int(Foundation.floor(sourceX)), y0 = Int(Foundation.floor(sourceY))
                        // Pixels whose whole 2×2 neighbourhood lies outside stay fill.
                        guard x0 >= -1, y0 >= -1, x0 < sourceWidth, y0 < sourceHeight else { continue }
                        let fx = Float(sourceX - Double(x0)), fy = Float(sourceY - Double(y0))
                        let pixel = rowStart + column * channelCount
                        if x0 >= 0, y0 >= 0, x0 + 1 < sourceWidth, y0 + 1 < sourceHeight {
                            // Interior: all four neighbours exist.
                            let top = source + (y0 * sourceWidth + x0) * channelCount
                            let bottom = top + sourceWidth * channelCount
                            for channel in 0..<channelCount {
                                let upper = top[channel] + fx * (top[channel + channelCount] - top[channel])
                                let lower = bottom[channel] + fx * (bottom[channel + channelCount] - bottom[channel])
                                pixel[channel] = upper + fy * (lower - upper)
                            }
                        } else {
                            for channel in 0..<channelCount {
                                let upper = sample(x0, y0, channel) * (1 - fx) + sample(x0 + 1, y0, channel) * fx
                                let lower = sample(x0, y0 + 1, channel) * (1 - fx) + sample(x0 + 1, y0 + 1, channel) * fx
                                pixel[channel] = upper * (1 - fy) + lower * fy
                            }
                        }
                    }
                }
            }
        }
        return FloatImage(uncheckedWidth: targetWidth, height: targetHeight, channels: channels, values: output)
    }
}
