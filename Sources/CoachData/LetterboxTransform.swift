/// Where an image sits inside a letterboxed canvas, to map boxes and points both ways.
///
/// Coordinates are continuous pixel coordinates with pixel `(x, y)` covering
/// `[x, x+1) × [y, y+1)`; a point maps as `letterbox = original · scale + offset`, a
/// length as `letterbox = original · scale`.
public struct LetterboxTransform: Equatable, Sendable {
    /// Width of the image before letterboxing.
    public var originalWidth: Int
    /// Height of the image before letterboxing.
    public var originalHeight: Int
    /// Width of the canvas.
    public var width: Int
    /// Height of the canvas.
    public var height: Int
    /// Width of the resized image inside the canvas.
    public var contentWidth: Int
    /// Height of the resized image inside the canvas.
    public var contentHeight: Int
    /// Column of the canvas where the image's left edge starts.
    public var offsetX: Int
    /// Row of the canvas where the image's top edge starts.
    public var offsetY: Int

    /// A placement from its sizes and offset.
    public init(originalWidth: Int, originalHeight: Int, width: Int, height: Int, contentWidth: Int, contentHeight: Int,
                offsetX: Int, offsetY: Int) {
        self.originalWidth = originalWidth
        self.originalHeight = originalHeight
        self.width = width
        self.height = height
        self.contentWidth = contentWidth
        self.contentHeight = contentHeight
        self.offsetX = offsetX
        self.offsetY = offsetY
    }

    /// Horizontal scale, `contentWidth / originalWidth` (equal to `scaleY` up to rounding).
    public var scaleX: Double { Double(contentWidth) / Double(originalWidth) }
    /// Vertical scale, `contentHeight / originalHeight`.
    public var scaleY: Double { Double(contentHeight) / Double(originalHeight) }

    /// The canvas point showing original point `(x, y)`.
    public func letterboxPoint(x: Double, y: Double) -> (x: Double, y: Double) {
        (x * scaleX + Double(offsetX), y * scaleY + Double(offsetY))
    }

    /// The original point shown at canvas point `(x, y)`.
    public func originalPoint(x: Double, y: Double) -> (x: Double, y: Double) {
        ((x - Double(offsetX)) / scaleX, (y - Double(offsetY)) / scaleY)
    }
}

/// A letterboxed image and how it was placed.
public struct LetterboxedImage: Equatable, Sendable {
    /// The canvas: the resized image centred, the rest filled.
    public var image: FloatImage
    /// How original coordinates map onto the canvas.
    public var transform: LetterboxTransform
}
