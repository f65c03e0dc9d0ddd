/// The EXIF orientation tag (1...8): how the stored pixels must be turned to be seen upright.
///
/// Case names follow the EXIF specification: they say where the stored image's first row
/// and first column end up when displayed (`rightTop`: row 0 on the right, column 0 on top,
/// i.e. the stored image must be rotated 90° clockwise).
public enum ImageOrientation: Int, CaseIterable, Equatable, Sendable {
    /// 1: stored upright.
    case topLeft = 1
    /// 2: mirrored left to right.
    case topRight = 2
    /// 3: rotated 180°.
    case bottomRight = 3
    /// 4: mirrored top to bottom.
    case bottomLeft = 4
    /// 5: transposed (mirrored across the main diagonal).
    case leftTop = 5
    /// 6: must be rotated 90° clockwise to display (typical phone portrait photo).
    case rightTop = 6
    /// 7: transversed (mirrored across the anti-diagonal).
    case rightBottom = 7
    /// 8: must be rotated 90° counter-clockwise to display.
    case leftBottom = 8

    /// Whether displaying the image swaps its width and height.
    public var swapsWidthAndHeight: Bool { rawValue >= 5 }
}

extension RGBImage {
    /// The image as it is meant to be seen when stored with EXIF `orientation`.
    public func oriented(_ orientation: ImageOrientation) -> RGBImage {
        if orientation == .topLeft { return self }
        let sourceWidth = width, sourceHeight = height
        let targetWidth = orientation.swapsWidthAndHeight ? sourceHeight : sourceWidth
        let targetHeight = orientation.swapsWidthAndHeight ? sourceWidth : sourceHeight
        // Displayed pixel (x, y) comes from stored pixel index base + x·stepX + y·stepY.
        let last = sourceHeight - 1, right = sourceWidth - 1
        let (base, stepX, stepY): (Int, Int, Int)
        switch orientation {
        case .topLeft: (base, stepX, stepY) = (0, 1, sourceWidth)
        case .topRight: (base, stepX, stepY) = (right, -1, sourceWidth)
        case .bottomRight: (base, stepX, stepY) = (last * sourceWidth + right, -1, -sourceWidth)
        case .bottomLeft: (base, stepX, stepY) = (last * sourceWidth, 1, -sourceWidth)
        case .leftTop: (base, stepX, stepY) = (0, sourceWidth, 1)
        case .rightTop: (base, stepX, stepY) = (last * sourceWidth, -sourceWidth, 1)
        case .rightBottom: (base, stepX, stepY) = (last * sourceWidth + right, -sourceWidth, -1)
        case .leftBottom: (base, stepX, stepY) = (right, sourceWidth, -1)
        }
        var result = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            result.withUnsafeMutableBufferPointer { target in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                var output = 0
                for y in 0..<targetHeight {
                    var pixel = base + y * stepY
                    for _ in 0..<targetWidth {
                        let input = pixel * 3
                        to[output] = from[input]
                        to[output + 1] = from[input + 1]
                        to[output + 2] = from[input + 2]
                        output += 3
                        pixel += stepX
                    }
                }
            }
        }
        return RGBImage(uncheckedWidth: targetWidth, height: targetHeight, pixels: result)
    }
}
