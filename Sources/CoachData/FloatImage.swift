/// A float image: `values` holds rows top to bottom, each pixel's channels interleaved (HWC).
///
/// Produced by resizing (`RGBImage.resized(width:height:)` and friends) with samples in the
/// 0...255 range of the source, then usually normalised for a model.
public struct FloatImage: Equatable, Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Channels per pixel (3 for RGB).
    public let channels: Int
    /// `height × width × channels` samples, HWC.
    public private(set) var values: [Float]

    /// An image over existing HWC samples; throws unless `values.count == width·height·channels`.
    public init(width: Int, height: Int, channels: Int, values: [Float]) throws {
        guard width >= 0, height >= 0, channels >= 1 else {
            throw ImageError.invalidArgument("float image size \(width)×\(height)×\(channels) is not valid")
        }
        guard values.count == width * height * channels else {
            throw ImageError.invalidArgument(
                "a \(width)×\(height)×\(channels) float image needs \(width * height * channels) values, got \(values.count)")
        }
        self.width = width
        self.height = height
        self.channels = channels
        self.values = values
    }

    /// An image with every sample equal to `value` (sizes below zero count as zero).
    public init(width: Int, height: Int, channels: Int = 3, repeating value: Float) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.channels = max(1, channels)
        self.values = [Float](repeating: value, count: self.width * self.height * self.channels)
    }

    /// The RGB image's samples as floats in 0...255.
    public init(_ image: RGBImage) {
        self.width = image.width
        self.height = image.height
        self.channels = 3
        self.values = image.floatPixels()
    }

    /// Internal: wraps values whose count the caller has already checked.
    init(uncheckedWidth width: Int, height: Int, channels: Int, values: [Float]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.values = values
    }

    /// The sample of channel `channel` at column `x`, row `y` (all must be in range).
    public subscript(x: Int, y: Int, channel: Int) -> Float {
        get {
            precondition(x >= 0 && x < width && y >= 0 && y < height && channel >= 0 && channel < channels,
                         "sample (\(x), \(y), \(channel)) outside \(width)×\(height)×\(channels)")
            return values[(y * width + x) * channels + channel]
        }
        set {
            precondition(x >= 0 && x < width && y >= 0 && y < height && channel >= 0 && channel < channels,
                         "sample (\(x), \(y), \(channel)) outside \(width)×\(height)×\(channels)")
            values[(y * width + x) * channels + channel] = newValue
        }
    }

    /// The `width × height` region whose top-left pixel is `(x, y)`; throws if it leaves the image.
    public func cropped(x: Int, y: Int, width cropWidth: Int, height cropHeight: Int) throws -> FloatImage {
        guard x >= 0, y >= 0, cropWidth >= 0, cropHeight >= 0,
              x + cropWidth <= width, y + cropHeight <= height else {
            throw ImageError.invalidArgument(
                "crop \(cropWidth)×\(cropHeight) at (\(x), \(y)) does not fit inside the \(width)×\(height) image")
        }
        let rowCount = cropWidth * channels
        var result = [Float](repeating: 0, count: cropHeight * rowCount)
        values.withUnsafeBufferPointer { source in
            result.withUnsafeMutableBufferPointer { target in
                guard let from = source.baseAddress, let to = target.baseAddress, rowCount > 0 else { return }
                for row in 0..<cropHeight {
                    (to + row * rowCount).update(from: from + ((y + row) * width + x) * channels, count: rowCount)
                }
            }
        }
        return FloatImage(uncheckedWidth: cropWidth, height: cropHeight, channels: channels, values: result)
    }

    /// The mirror image (left and right swapped).
    public func flippedHorizontally() -> FloatImage {
        var result = values
        for y in 0..<height {
            for x in 0..<width {
                let from = (y * width + (width - 1 - x)) * channels
                let to = (y * width + x) * channels
                for channel in 0..<channels { result[to + channel] = values[from + channel] }
            }
        }
        return FloatImage(uncheckedWidth: width, height: height, channels: channels, values: result)
    }

    /// Every sample mapped to `(value − subtrahend) / divisor`; `(127, 128)` gives EfficientNet-Lite's input.
    public func normalized(subtracting subtrahend: Float, dividingBy divisor: Float) -> FloatImage {
        var result = values
        result.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices { buffer[index] = (buffer[index] - subtrahend) / divisor }
        }
        return FloatImage(uncheckedWidth: width, height: height, channels: channels, values: result)
    }

    /// The image rounded and clamped to 0...255 as 8-bit RGB; throws unless it has 3 channels.
    public func rgbImage() throws -> RGBImage {
        guard channels == 3 else {
            throw ImageError.invalidArgument("only a 3-channel float image converts to RGB, this one has \(channels)")
        }
        let pixels = values.map { UInt8(max(0, min(255, $0.rounded()))) }
        return RGBImage(uncheckedWidth: width, height: height, pixels: pixels)
    }
}
