import CoachData

/// An axis-aligned box in image pixels: origin at the image's top-left corner, y pointing down.
public struct PixelBox: Equatable, Hashable, Sendable {
    /// Left edge.
    public var x: Double
    /// Top edge.
    public var y: Double
    /// Width (negative widths count as zero in areas).
    public var width: Double
    /// Height (negative heights count as zero in areas).
    public var height: Double

    /// A box from its top-left corner and size.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// A box from Create ML's centre-and-size coordinates.
    public init(centreX: Double, centreY: Double, width: Double, height: Double) {
        self.init(x: centreX - width / 2, y: centreY - height / 2, width: width, height: height)
    }

    /// The same box as an annotation's or detector's corner-form `BoundingBox` (pixels).
    public init(_ box: BoundingBox) {
        self.init(x: box.minX, y: box.minY, width: box.width, height: box.height)
    }

    /// The smallest box holding every point (a zero box for no points).
    public init(enclosing points: [SIMD2<Double>]) {
        guard let first = points.first else {
            self.init(x: 0, y: 0, width: 0, height: 0)
            return
        }
        var low = first, high = first
        for point in points {
            low = pointwiseMin(low, point)
            high = pointwiseMax(high, point)
        }
        self.init(x: low.x, y: low.y, width: high.x - low.x, height: high.y - low.y)
    }

    /// The right edge.
    public var maxX: Double { x + width }
    /// The bottom edge.
    public var maxY: Double { y + height }
    /// The centre.
    public var centre: SIMD2<Double> { SIMD2(x + width / 2, y + height / 2) }
    /// The area (zero for an empty or inverted box).
    public var area: Double { max(0, width) * max(0, height) }

    /// The same box as CoachData's edge-based `BoundingBox`.
    public var boundingBox: BoundingBox { BoundingBox(minX: x, minY: y, maxX: maxX, maxY: maxY) }

    /// Intersection over union with `other` (0 when either is empty).
    public func intersectionOverUnion(_ other: PixelBox) -> Double {
        let overlapWidth = min(maxX, other.maxX) - max(x, other.x)
        let overlapHeight = min(maxY, other.maxY) - max(y, other.y)
        guard overlapWidth > 0, overlapHeight > 0 else { return 0 }
        let overlap = overlapWidth * overlapHeight
        let union = area + other.area - overlap
        return union > 0 ? overlap / union : 0
    }
}
