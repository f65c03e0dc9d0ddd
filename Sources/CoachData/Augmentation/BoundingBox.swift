/// An axis-aligned box in continuous pixel coordinates, origin at the image's top-left.
///
/// Pixel `(x, y)` covers `[x, x+1) × [y, y+1)`, so a box exactly covering pixels
/// `x0...x1` has `minX = x0`, `maxX = x1 + 1`. Create ML's annotations (centre and size
/// in pixels, FORMATS §2) convert with `init(centerX:centerY:width:height:)`.
public struct BoundingBox: Hashable, Sendable {
    /// Left edge.
    public var minX: Double
    /// Top edge.
    public var minY: Double
    /// Right edge.
    public var maxX: Double
    /// Bottom edge.
    public var maxY: Double

    /// A box from its edges.
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// A box from its centre and size (Create ML's `coordinates`).
    public init(centerX: Double, centerY: Double, width: Double, height: Double) {
        self.init(minX: centerX - width / 2, minY: centerY - height / 2,
                  maxX: centerX + width / 2, maxY: centerY + height / 2)
    }

    /// `maxX − minX` (negative for an inverted box).
    public var width: Double { maxX - minX }
    /// `maxY − minY` (negative for an inverted box).
    public var height: Double { maxY - minY }
    /// Horizontal centre.
    public var centerX: Double { (minX + maxX) / 2 }
    /// Vertical centre.
    public var centerY: Double { (minY + maxY) / 2 }
    /// `width × height`, or 0 when the box is empty or inverted.
    public var area: Double { max(0, width) * max(0, height) }

    /// The overlap of the two boxes, or nil when they do not overlap with positive area.
    public func intersection(_ other: BoundingBox) -> BoundingBox? {
        let box = BoundingBox(minX: max(minX, other.minX), minY: max(minY, other.minY),
                              maxX: min(maxX, other.maxX), maxY: min(maxY, other.maxY))
        return box.width > 0 && box.height > 0 ? box : nil
    }

    /// Intersection over union, 0 when they do not overlap (or both are empty).
    public func intersectionOverUnion(_ other: BoundingBox) -> Double {
        guard let overlap = intersection(other) else { return 0 }
        let union = area + other.area - overlap.area
        return union > 0 ? overlap.area / union : 0
    }

    /// The part inside a `width × height` image, or nil when none of it is.
    public func clipped(width: Int, height: Int) -> BoundingBox? {
        intersection(BoundingBox(minX: 0, minY: 0, maxX: Double(width), maxY: Double(height)))
    }
}

/// A point in continuous pixel coordinates, origin at the image's top-left (pixel
/// `(x, y)`'s centre is `(x + 0.5, y + 0.5)`).
public struct ImagePoint: Hashable, Sendable {
    /// Horizontal position in pixels from the left edge.
    public var x: Double
    /// Vertical position in pixels from the top edge.
    public var y: Double

    /// A point at `(x, y)`.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// Whether the point lies inside a `width × height` image.
    public func isInside(width: Int, height: Int) -> Bool {
        x >= 0 && y >= 0 && x < Double(width) && y < Double(height)
    }
}
