/// Size arithmetic shared by the resizing operations.
public enum ImageResizing {
    /// The size of a `width × height` image scaled so its short side is `shortSide`; the
    /// long side is `long · shortSide / short` rounded half to even (as Python's `round`,
    /// which the EfficientNet-Lite reference preprocessing used), at least 1.
    public static func size(width: Int, height: Int, shortSide: Int) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { return (0, 0) }
        if height <= width {
            let long = (Double(width * shortSide) / Double(height)).rounded(.toNearestOrEven)
            return (max(1, Int(long)), shortSide)
        }
        let long = (Double(height * shortSide) / Double(width)).rounded(.toNearestOrEven)
        return (shortSide, max(1, Int(long)))
    }

    /// The placement of a `width × height` image scaled to fit inside a `canvasWidth × canvasHeight`
    /// canvas with its aspect ratio kept, centred (offsets rounded down).
    public static func letterboxTransform(width: Int, height: Int, canvasWidth: Int,
                                          canvasHeight: Int) -> LetterboxTransform {
        let scale = min(Double(canvasWidth) / Double(width), Double(canvasHeight) / Double(height))
        let contentWidth = min(canvasWidth, max(1, Int((Double(width) * scale).rounded(.toNearestOrEven))))
        let contentHeight = min(canvasHeight, max(1, Int((Double(height) * scale).rounded(.toNearestOrEven))))
        return LetterboxTransform(originalWidth: width, originalHeight: height,
                                  width: canvasWidth, height: canvasHeight,
                                  contentWidth: contentWidth, contentHeight: contentHeight,
                                  offsetX: (canvasWidth - contentWidth) / 2,
                                  offsetY: (canvasHeight - contentHeight) / 2)
    }

    static func validate(width: Int, height: Int, outputWidth: Int, outputHeight: Int) throws {
        guard width > 0, height > 0 else {
            throw ImageError.invalidArgument("cannot resize an empty \(width)×\(height) image")
        }
        guard outputWidth > 0, outputHeight > 0 else {
            throw ImageError.invalidArgument("cannot resize to \(outputWidth)×\(outputHeight): sizes must be at least 1")
        }
    }

    /// Resamples to the full `outputWidth × outputHeight` grid and returns its window at
    /// `(x, y)` of `windowWidth × windowHeight`.
    static func resample<Sample: ResamplingSample>(
        _ samples: [Sample], width: Int, height: Int, channels: Int,
        outputWidth: Int, outputHeight: Int,
        x: Int = 0, y: Int = 0, windowWidth: Int? = nil, windowHeight: Int? = nil
    ) throws -> FloatImage {
        try validate(width: width, height: height, outputWidth: outputWidth, outputHeight: outputHeight)
        let cropWidth = windowWidth ?? outputWidth, cropHeight = windowHeight ?? outputHeight
        guard x >= 0, y >= 0, cropWidth > 0, cropHeight > 0,
              x + cropWidth <= outputWidth, y + cropHeight <= outputHeight else {
            throw ImageError.invalidArgument(
                "crop \(cropWidth)×\(cropHeight) at (\(x), \(y)) does not fit inside the resized \(outputWidth)×\(outputHeight) image")
        }
        var values = [Float](repeating: 0, count: cropWidth * cropHeight * channels)
        samples.withUnsafeBufferPointer { source in
            values.withUnsafeMutableBufferPointer { target in
                ImageResampler.resample(source, width: width, height: height, channels: channels,
                                        outputWidth: outputWidth, outputHeight: outputHeight,
                                        columns: x..<(x + cropWidth), rows: y..<(y + cropHeight),
                                        into: target.baseAddress!, rowStride: cropWidth * channels)
            }
        }
        return FloatImage(uncheckedWidth: cropWidth, height: cropHeight, channels: channels, values: values)
    }

    static func letterbox<Sample: ResamplingSample>(
        _ samples: [Sample], width: Int, height: Int, channels: Int,
        canvasWidth: Int, canvasHeight: Int, fillValue: Float
    ) throws -> LetterboxedImage {
        try validate(width: width, height: height, outputWidth: canvasWidth, outputHeight: canvasHeight)
        let transform = letterboxTransform(width: width, height: height,
                                           canvasWidth: canvasWidth, canvasHeight: canvasHeight)
        var values = [Float](repeating: fillValue, count: canvasWidth * canvasHeight * channels)
        samples.withUnsafeBufferPointer { source in
            values.withUnsafeMutableBufferPointer { target in
                let origin = target.baseAddress! + (transform.offsetY * canvasWidth + transform.offsetX) * channels
                ImageResampler.resample(source, width: width, height: height, channels: channels,
                                        outputWidth: transform.contentWidth, outputHeight: transform.contentHeight,
                                        columns: 0..<transform.contentWidth, rows: 0..<transform.contentHeight,
                                        into: origin, rowStride: canvasWidth * channels)
            }
        }
        let image = FloatImage(uncheckedWidth: canvasWidth, height: canvasHeight, channels: channels, values: values)
        return LetterboxedImage(image: image, transform: transform)
    }
}

extension RGBImage {
    /// Stretched to `width × height` (aspect ratio not kept) with anti-aliased bilinear
    /// resampling identical to scikit-image's `resize(order=1, anti_aliasing=True)`;
    /// samples stay in 0...255.
    public func resized(width outputWidth: Int, height outputHeight: Int) throws -> FloatImage {
        try ImageResizing.resample(pixels, width: width, height: height, channels: 3,
                                   outputWidth: outputWidth, outputHeight: outputHeight)
    }

    /// Scaled (anti-aliased bilinear) so the short side is `shortSide` pixels; see `ImageResizing.size`.
    public func resized(shortSide: Int) throws -> FloatImage {
        let size = ImageResizing.size(width: width, height: height, shortSide: shortSide)
        return try resized(width: size.width, height: size.height)
    }

    /// Scaled so the short side is `shortSide`, then the centre `cropWidth × cropHeight`
    /// (offset `(resized − crop) / 2`, rounded down); EfficientNet-Lite's reference uses
    /// `shortSide: 256, cropWidth: 224, cropHeight: 224`. Only the cropped pixels are computed.
    public func resizedAndCenterCropped(shortSide: Int, cropWidth: Int, cropHeight: Int) throws -> FloatImage {
        let size = ImageResizing.size(width: width, height: height, shortSide: shortSide)
        return try ImageResizing.resample(pixels, width: width, height: height, channels: 3,
                                          outputWidth: size.width, outputHeight: size.height,
                                          x: (size.width - cropWidth) / 2, y: (size.height - cropHeight) / 2,
                                          windowWidth: cropWidth, windowHeight: cropHeight)
    }

    /// Scaled (anti-aliased bilinear, aspect kept) to fit a `width × height` canvas, centred,
    /// the rest filled with `fillValue` (0...255 units; 127 becomes 0 after EfficientNet-Lite's
    /// normalisation); the transform maps boxes between the two.
    public func letterboxed(width canvasWidth: Int, height canvasHeight: Int,
                            fillValue: Float = 127) throws -> LetterboxedImage {
        try ImageResizing.letterbox(pixels, width: width, height: height, channels: 3,
                                    canvasWidth: canvasWidth, canvasHeight: canvasHeight, fillValue: fillValue)
    }
}

extension FloatImage {
    /// Stretched to `width × height` with scikit-image-equivalent anti-aliased bilinear resampling.
    public func resized(width outputWidth: Int, height outputHeight: Int) throws -> FloatImage {
        try ImageResizing.resample(values, width: width, height: height, channels: channels,
                                   outputWidth: outputWidth, outputHeight: outputHeight)
    }

    /// Scaled so the short side is `shortSide`, then the centre `cropWidth × cropHeight`.
    public func resizedAndCenterCropped(shortSide: Int, cropWidth: Int, cropHeight: Int) throws -> FloatImage {
        let size = ImageResizing.size(width: width, height: height, shortSide: shortSide)
        return try ImageResizing.resample(values, width: width, height: height, channels: channels,
                                          outputWidth: size.width, outputHeight: size.height,
                                          x: (size.width - cropWidth) / 2, y: (size.height - cropHeight) / 2,
                                          windowWidth: cropWidth, windowHeight: cropHeight)
    }

    /// Scaled (aspect kept) to fit a `width × height` canvas, centred, the rest `fillValue`.
    public func letterboxed(width canvasWidth: Int, height canvasHeight: Int,
                            fillValue: Float = 127) throws -> LetterboxedImage {
        try ImageResizing.letterbox(values, width: width, height: height, channels: channels,
                                    canvasWidth: canvasWidth, canvasHeight: canvasHeight, fillValue: fillValue)
    }
}
