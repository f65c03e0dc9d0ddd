import Foundation

/// A 2-D affine map of continuous pixel coordinates (origin top-left, y down):
/// `x' = a·x + b·y + tx`, `y' = c·x + d·y + ty`.
///
/// Geometric augmentations are built from these and composed into one transform, so an
/// image is resampled once however many geometric steps a pipeline has, and boxes and
/// keypoints move by exactly the same map as the pixels.
public struct AffineTransform: Equatable, Sendable {
    /// Coefficient of x in x'.
    public var a: Double
    /// Coefficient of y in x'.
    public var b: Double
    /// Coefficient of x in y'.
    public var c: Double
    /// Coefficient of y in y'.
    public var d: Double
    /// Constant term of x'.
    public var tx: Double
    /// Constant term of y'.
    public var ty: Double

    /// A transform from its six coefficients.
    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.tx = tx
        self.ty = ty
    }

    /// The map that leaves every point where it is.
    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// A shift by `(x, y)` pixels.
    public static func translation(x: Double, y: Double) -> AffineTransform {
        AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y)
    }

    /// A scaling about the origin.
    public static func scaling(x: Double, y: Double) -> AffineTransform {
        AffineTransform(a: x, b: 0, c: 0, d: y, tx: 0, ty: 0)
    }

    /// A rotation by `degrees` about `(centerX, centerY)`; positive angles turn the picture
    /// counter-clockwise as seen on screen (y points down).
    public static func rotation(degrees: Double, centerX: Double, centerY: Double) -> AffineTransform {
        let radians = degrees * Double.pi / 180
        let cosine = Foundation.cos(radians), sine = Foundation.sin(radians)
        // With y down, (dx, dy) → (cos·dx + sin·dy, −sin·dx + cos·dy) turns counter-clockwise.
        return AffineTransform(a: cosine, b: sine, c: -sine, d: cosine,
                               tx: centerX - cosine * centerX - sine * centerY,
                               ty: centerY + sine * centerX - cosine * centerY)
    }

    /// The mirror image of a `width`-pixel-wide image: `x' = width − x`.
    public static func horizontalFlip(width: Int) -> AffineTransform {
        AffineTransform(a: -1, b: 0, c: 0, d: 1, tx: Double(width), ty: 0)
    }

    /// Whether this is exactly the identity.
    public var isIdentity: Bool { self == .identity }

    /// This map followed by `next`.
    public func followed(by next: AffineTransform) -> AffineTransform {
        AffineTransform(a: next.a * a + next.b * c, b: next.a * b + next.b * d,
                        c: next.c * a + next.d * c, d: next.c * b + next.d * d,
                        tx: next.a * tx + next.b * ty + next.tx,
                        ty: next.c * tx + next.d * ty + next.ty)
    }

    /// The inverse map, or nil when this one collapses the plane (determinant 0).
    public var inverted: AffineTransform? {
        let determinant = a * d - b * c
        guard determinant != 0, determinant.isFinite else { return nil }
        let ia = d / determinant, ib = -b / determinant, ic = -c / determinant, id = a / determinant
        return AffineTransform(a: ia, b: ib, c: ic, d: id,
                               tx: -(ia * tx + ib * ty), ty: -(ic * tx + id * ty))
    }

    /// The image of `point`.
    public func apply(to point: ImagePoint) -> ImagePoint {
        ImagePoint(x: a * point.x + b * point.y + tx, y: c * point.x + d * point.y + ty)
    }

    /// The smallest axis-aligned box holding the images of `box`'s four corners (not clipped).
    public func apply(to box: BoundingBox) -> BoundingBox {
        let corners = [ImagePoint(x: box.minX, y: box.minY), ImagePoint(x: box.maxX, y: box.minY),
                       ImagePoint(x: box.minX, y: box.maxY), ImagePoint(x: box.maxX, y: box.maxY)].map(apply(to:))
        return BoundingBox(minX: corners.map(\.x).min()!, minY: corners.map(\.y).min()!,
                           maxX: corners.map(\.x).max()!, maxY: corners.map(\.y).max()!)
    }
}
