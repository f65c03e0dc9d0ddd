import CoachData
import CoachTensor
import Foundation

/// A rotated rectangle of an image, normalised to its width and height — MediaPipe's
/// `NormalizedRect`, the region a landmark model looks at.
public struct RotatedRegion: Equatable, Sendable {
    public var centerX: Float, centerY: Float
    /// Width over the image width, height over the image height.
    public var width: Float, height: Float
    /// Radians, clockwise in the image (y down).
    public var rotation: Float

    public init(centerX: Float, centerY: Float, width: Float, height: Float, rotation: Float = 0) {
        self.centerX = centerX
        self.centerY = centerY
        self.width = width
        self.height = height
        self.rotation = rotation
    }

    /// `angle` wrapped into [−π, π).
    static func normalized(_ angle: Float) -> Float {
        angle - 2 * .pi * ((angle + .pi) / (2 * .pi)).rounded(.down)
    }

    /// The rotation that turns the vector from `start` to `end` (normalised points of an image of
    /// `imageWidth`×`imageHeight`) to `target` radians (MediaPipe's `ComputeRotation`).
    static func rotation(from start: (x: Float, y: Float), to end: (x: Float, y: Float), target: Float,
                         imageWidth: Int, imageHeight: Int) -> Float {
        let x0 = start.x * Float(imageWidth), y0 = start.y * Float(imageHeight)
        let x1 = end.x * Float(imageWidth), y1 = end.y * Float(imageHeight)
        return normalized(target - atan2(-(y1 - y0), x1 - x0))
    }

    /// MediaPipe's `RectTransformationCalculator`: shifted by `shiftX`/`shiftY` of its size along its
    /// own axes, made square on its longer side (in pixels) when `squareLong`, then scaled.
    func transformed(scale: Float, shiftX: Float = 0, shiftY: Float = 0, squareLong: Bool = true,
                     imageWidth: Int, imageHeight: Int) -> RotatedRegion {
        var region = self
        let w = Float(imageWidth), h = Float(imageHeight)
        if rotation == 0 {
            region.centerX += width * shiftX
            region.centerY += height * shiftY
        } else {
            region.centerX += (w * width * shiftX * cos(rotation) - h * height * shiftY * sin(rotation)) / w
            region.centerY += (w * width * shiftX * sin(rotation) + h * height * shiftY * cos(rotation)) / h
        }
        if squareLong {
            let long = max(width * w, height * h)
            region.width = long / w
            region.height = long / h
        }
        region.width *= scale
        region.height *= scale
        return region
    }

    /// A point given in the region's own normalised frame (0…1 across, 0…1 down) in the image's
    /// normalised coordinates (MediaPipe's `LandmarkProjectionCalculator`).
    public func project(x: Float, y: Float) -> (x: Float, y: Float) {
        let u = x - 0.5, v = y - 0.5
        let c = cos(rotation), s = sin(rotation)
        return ((c * u - s * v) * width + centerX, (s * u + c * v) * height + centerY)
    }

    /// How pixels outside the image are filled when cropping.
    public enum Border: Sendable { case zero, replicate }

    /// The region resampled to `size`×`size` pixels as MediaPipe's CPU path does it — OpenCV's
    /// `warpPerspective` mapping the rotated rectangle's corners onto the output's, bilinear at
    /// 1/32-pixel source positions, rounded to 8 bits — as a [1, size, size, 3] tensor of channel
    /// values mapped linearly from 0…255 to `range`. (Matching the rounding matters: the body
    /// model's heatmap refinement turns sub-level input differences into landmark jumps.)
    public func crop(_ image: RGBImage, size: Int, range: ClosedRange<Float>, border: Border) -> Tensor {
        let imageWidth = image.width, imageHeight = image.height
        let cx = centerX * Float(imageWidth), cy = centerY * Float(imageHeight)
        let w = width * Float(imageWidth), h = height * Float(imageHeight)
        let c = cos(rotation), s = sin(rotation)
        let scale = (range.upperBound - range.lowerBound) / 255, offset = range.lowerBound
        return image.pixels.withUnsafeBufferPointer { pixels in
            Tensor(shape: [1, size, size, 3]) { out in
                for row in 0..<size {
                    let v = (Float(row) / Float(size) - 0.5) * h
                    for column in 0..<size {
                        let u = (Float(column) / Float(size) - 0.5) * w
                        let sx = cx + u * c - v * s, sy = cy + u * s + v * c
                        // OpenCV's fixed point: source positions in 1/32 pixel.
                        let qx = (sx * 32).rounded(), qy = (sy * 32).rounded()
                        let x0 = Int((qx / 32).rounded(.down)), y0 = Int((qy / 32).rounded(.down))
                        let fx = (qx - Float(x0) * 32) / 32, fy = (qy - Float(y0) * 32) / 32
                        let target = (row * size + column) * 3
                        for channel in 0..<3 {
                            func sample(_ x: Int, _ y: Int) -> Float? {
                                var x = x, y = y
                                if x < 0 || y < 0 || x >= imageWidth || y >= imageHeight {
                                    guard border == .replicate else { return nil }
                                    x = min(max(x, 0), imageWidth - 1)
                                    y = min(max(y, 0), imageHeight - 1)
                                }
                                return Float(pixels[(y * imageWidth + x) * 3 + channel])
                            }
                            let a = sample(x0, y0) ?? 0, b = sample(x0 + 1, y0) ?? 0
                            let d = sample(x0, y0 + 1) ?? 0, e = sample(x0 + 1, y0 + 1) ?? 0
                            let top = a + (b - a) * fx, bottom = d + (e - d) * fx
                            out[target + channel] = (top + (bottom - top) * fy).rounded() * scale + offset
                        }
                    }
                }
            }
        }
    }
}
