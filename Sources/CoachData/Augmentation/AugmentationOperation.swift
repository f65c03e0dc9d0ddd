/// One augmentation with its parameters drawn: a pure value that `AugmentationPipeline`
/// applies deterministically (the noise carries its own seed).
public enum AugmentationOperation: Equatable, Sendable {
    /// Mirror left and right.
    case horizontalFlip
    /// Rotate about the image centre by `degrees` (positive: counter-clockwise on screen).
    case rotation(degrees: Double)
    /// Stretch the `window` (pixel coordinates) to fill the whole image.
    case crop(BoundingBox)
    /// Shift by `(x, y)` pixels.
    case translation(x: Double, y: Double)
    /// Multiply samples by `2^stops`.
    case exposure(stops: Float)
    /// Scale contrast about the mean luminance.
    case contrast(factor: Float)
    /// Scale saturation about each pixel's luminance.
    case saturation(factor: Float)
    /// Gaussian blur of `sigma` pixels.
    case gaussianBlur(sigma: Double)
    /// Gaussian noise of `standardDeviation` (0...255 units) from a generator seeded with `seed`.
    case gaussianNoise(standardDeviation: Float, seed: UInt64)

    /// The geometric map of this operation on a `width × height` image (identity for
    /// photometric operations); output images keep the input's size.
    public func transform(width: Int, height: Int) -> AffineTransform {
        switch self {
        case .horizontalFlip:
            return .horizontalFlip(width: width)
        case let .rotation(degrees):
            return .rotation(degrees: degrees, centerX: Double(width) / 2, centerY: Double(height) / 2)
        case let .crop(window):
            guard window.width > 0, window.height > 0 else { return .identity }
            return AffineTransform.translation(x: -window.minX, y: -window.minY)
                .followed(by: .scaling(x: Double(width) / window.width, y: Double(height) / window.height))
        case let .translation(x, y):
            return .translation(x: x, y: y)
        default:
            return .identity
        }
    }

    /// Whether it moves pixels rather than changing their values.
    public var isGeometric: Bool {
        switch self {
        case .horizontalFlip, .rotation, .crop, .translation: return true
        default: return false
        }
    }
}
