import CoachData

/// A single-channel floating-point image: `pixels` holds rows top to bottom, values 0...255.
///
/// The plain plane classic vision kernels (registration, thresholds, contours, blobs) work on.
/// Pixel `(x, y)` covers `[x, x+1) × [y, y+1)`; the origin is the top-left corner.
public struct GrayImage: Equatable, Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `height × width` values, rows top to bottom.
    public var pixels: [Float]

    /// An image over existing values; `pixels.count` must be `width × height` (checked).
    public init(width: Int, height: Int, pixels: [Float]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height,
                     "a \(width)×\(height) grey image needs \(width * height) values, got \(pixels.count)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// An image of one value.
    public init(width: Int, height: Int, value: Float = 0) {
        self.init(width: max(0, width), height: max(0, height),
                  pixels: [Float](repeating: value, count: max(0, width) * max(0, height)))
    }

    /// The luminance (Rec. 601: 0.299 R + 0.587 G + 0.114 B) of `image`, averaged over
    /// `factor × factor` blocks (the last partial row and column of blocks are dropped).
    public init(luminanceOf image: RGBImage, downscaledBy factor: Int = 1) {
        let step = max(1, factor)
        let outputWidth = image.width / step
        let outputHeight = image.height / step
        var values = [Float](repeating: 0, count: outputWidth * outputHeight)
        let scale = 1 / Float(step * step)
        image.pixels.withUnsafeBufferPointer { source in
            for row in 0..<outputHeight {
                for column in 0..<outputWidth {
                    var sum: Float = 0
                    for y in (row * step)..<(row * step + step) {
                        var index = (y * image.width + column * step) * 3
                        for _ in 0..<step {
                            sum += 0.299 * Float(source[index]) + 0.587 * Float(source[index + 1])
                                + 0.114 * Float(source[index + 2])
                            index += 3
                        }
                    }
                    values[row * outputWidth + column] = sum * scale
                }
            }
        }
        self.init(width: outputWidth, height: outputHeight, pixels: values)
    }

    /// The value at column `x`, row `y` (both must be inside the image).
    public subscript(x: Int, y: Int) -> Float {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }
}
