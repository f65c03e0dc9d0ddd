import CoachData

/// A point in Vision's normalised coordinates: 0…1 across the width and the height, origin at
/// the BOTTOM-LEFT corner, y pointing up.
///
/// Image pixel coordinates (`ImagePoint`) have their origin at the top-left with y pointing
/// down; `imagePoint(imageWidth:imageHeight:)` and `init(imagePoint:imageWidth:imageHeight:)`
/// convert (`x_pixels = x·width`, `y_pixels = (1 − y)·height`).
public struct NormalizedPoint: Hashable, Sendable {
    /// Horizontal position, 0 at the left edge, 1 at the right edge.
    public var x: Double
    /// Vertical position, 0 at the BOTTOM edge, 1 at the top edge.
    public var y: Double

    /// A point at `(x, y)` (bottom-left origin).
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The normalised position of pixel-coordinate `imagePoint` (origin top-left) in a
    /// `imageWidth × imageHeight` image.
    public init(imagePoint: ImagePoint, imageWidth: Int, imageHeight: Int) {
        x = imageWidth > 0 ? imagePoint.x / Double(imageWidth) : 0
        y = imageHeight > 0 ? 1 - imagePoint.y / Double(imageHeight) : 0
    }

    /// The point in pixel coordinates of a `imageWidth × imageHeight` image, origin top-left:
    /// `(x·imageWidth, (1 − y)·imageHeight)`.
    public func imagePoint(imageWidth: Int, imageHeight: Int) -> ImagePoint {
        ImagePoint(x: x * Double(imageWidth), y: (1 - y) * Double(imageHeight))
    }
}
