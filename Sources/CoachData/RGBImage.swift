import Foundation

/// One 8-bit RGB pixel value.
public struct RGBColor: Equatable, Hashable, Sendable {
    /// Red, 0...255.
    public var red: UInt8
    /// Green, 0...255.
    public var green: UInt8
    /// Blue, 0...255.
    public var blue: UInt8

    /// A colour from its three components.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// White (255, 255, 255).
    public static let white = RGBColor(red: 255, green: 255, blue: 255)
    /// Black (0, 0, 0).
    public static let black = RGBColor(red: 0, green: 0, blue: 0)
}

/// An 8-bit RGB image: `pixels` holds rows top to bottom, each pixel as R, G, B (HWC).
///
/// The origin is the top-left corner as the image is meant to be seen (decoders apply
/// EXIF orientation). Pixel `(x, y)` covers the square `[x, x+1) × [y, y+1)`.
public struct RGBImage: Equatable, Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `height × width × 3` samples, interleaved R, G, B, rows top to bottom.
    public private(set) var pixels: [UInt8]

    /// An image over existing interleaved RGB samples; throws unless `pixels.count == width·height·3`.
    public init(width: Int, height: Int, pixels: [UInt8]) throws {
        guard width >= 0, height >= 0 else {
            throw ImageError.invalidArgument("image size \(width)×\(height) is negative")
        }
        guard pixels.count == width * height * 3 else {
            throw ImageError.invalidArgument(
                "an RGB image of \(width)×\(height) needs \(width * height * 3) samples, got \(pixels.count)")
        }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// An image of one colour (sizes below zero count as zero).
    public init(width: Int, height: Int, color: RGBColor) {
        self.width = max(0, width)
        self.height = max(0, height)
        var samples = [UInt8](repeating: 0, count: self.width * self.height * 3)
        for index in stride(from: 0, to: samples.count, by: 3) {
            samples[index] = color.red
            samples[index + 1] = color.green
            samples[index + 2] = color.blue
        }
        self.pixels = samples
    }

    /// Internal: wraps samples whose count the caller has already checked.
    init(uncheckedWidth width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Decodes a JPEG or PNG file (see `ImageDecoder.decode(contentsOf:options:)`).
    public init(contentsOf url: URL, options: ImageDecodingOptions = ImageDecodingOptions()) throws {
        self = try ImageDecoder.decode(contentsOf: url, options: options).image
    }

    /// The number of pixels, `width × height`.
    public var pixelCount: Int { width * height }

    /// The pixel at column `x`, row `y` (both must be inside the image).
    public subscript(x: Int, y: Int) -> RGBColor {
        get {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)×\(height)")
            let index = (y * width + x) * 3
            return RGBColor(red: pixels[index], green: pixels[index + 1], blue: pixels[index + 2])
        }
        set {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)×\(height)")
            let index = (y * width + x) * 3
            pixels[index] = newValue.red
            pixels[index + 1] = newValue.green
            pixels[index + 2] = newValue.blue
        }
    }

    /// The `width × height` region whose top-left pixel is `(x, y)`; throws if it leaves the image.
    public func cropped(x: Int, y: Int, width cropWidth: Int, height cropHeight: Int) throws -> RGBImage {
        guard x >= 0, y >= 0, cropWidth >= 0, cropHeight >= 0,
              x + cropWidth <= width, y + cropHeight <= height else {
            throw ImageError.invalidArgument(
                "crop \(cropWidth)×\(cropHeight) at (\(x), \(y)) does not fit inside the \(width)×\(height) image")
        }
        var result = [UInt8](repeating: 0, count: cropWidth * cropHeight * 3)
        let rowBytes = cropWidth * 3
        pixels.withUnsafeBufferPointer { source in
            result.withUnsafeMutableBufferPointer { target in
                guard let from = source.baseAddress, let to = target.baseAddress, rowBytes > 0 else { return }
                for row in 0..<cropHeight {
                    (to + row * rowBytes).update(from: from + ((y + row) * width + x) * 3, count: rowBytes)
                }
            }
        }
        return RGBImage(uncheckedWidth: cropWidth, height: cropHeight, pixels: result)
    }

    /// The mirror image (left and right swapped).
    public func flippedHorizontally() -> RGBImage { oriented(.topRight) }

    /// The image upside down (top and bottom swapped, not rotated).
    public func flippedVertically() -> RGBImage { oriented(.bottomLeft) }

    /// The samples as floats in 0...255, HWC (`height × width × 3`).
    public func floatPixels() -> [Float] {
        pixels.map { Float($0) }
    }

    /// The samples as `(value − subtrahend) / divisor`, HWC; e.g. `(127, 128)` for EfficientNet-Lite.
    public func floatPixels(subtracting subtrahend: Float, dividingBy divisor: Float) -> [Float] {
        pixels.map { (Float($0) - subtrahend) / divisor }
    }
}
