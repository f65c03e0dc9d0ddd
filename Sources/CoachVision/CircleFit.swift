import Foundation

/// A circle fitted to points, with how well it fits.
public struct FittedCircle: Equatable, Sendable {
    /// The centre `(x, y)` in the points' coordinates.
    public var centre: SIMD2<Double>
    /// The radius.
    public var radius: Double
    /// The root-mean-square distance of the fitted points from the circle.
    public var residual: Double

    /// A circle from its parts.
    public init(centre: SIMD2<Double>, radius: Double, residual: Double) {
        self.centre = centre
        self.radius = radius
        self.residual = residual
    }
}

/// Least-squares circle fitting.
///
/// Taubin's algebraic fit (G. Taubin 1991, in N. Chernov's Newton-iteration form): it
/// minimises the algebraic distance `Σ (|p − c|² − r²)²` normalised by its gradient, which makes
/// it nearly as accurate as the geometric fit and, unlike Kåsa's simpler fit, free of Kåsa's
/// strong bias towards small circles when the points cover only part of the circle — the usual
/// case for a hole partly hidden by a bag. It needs no starting guess and no iteration over
/// the points beyond one pass of moments.
public enum CircleFit {
    /// The Taubin fit to `points`; nil for fewer than three points or (nearly) collinear ones.
    public static func taubin(_ points: [SIMD2<Double>]) -> FittedCircle? {
        guard points.count >= 3 else { return nil }
        let count = Double(points.count)
        var mean = SIMD2<Double>(0, 0)
        for point in points { mean += point }
        mean /= count
        var xx = 0.0, yy = 0.0, xy = 0.0, xz = 0.0, yz = 0.0, zz = 0.0
        for point in points {
            let x = point.x - mean.x, y = point.y - mean.y
            let z = x * x + y * y
            xx += x * x
            yy += y * y
            xy += x * y
            xz += x * z
            yz += y * z
            zz += z * z
        }
        xx /= count; yy /= count; xy /= count; xz /= count; yz /= count; zz /= count
        let z = xx + yy
        let covariance = xx * yy - xy * xy
        let variance = zz - z * z
        let a3 = 4 * z
        let a2 = -3 * z * z - zz
        let a1 = variance * z + 4 * covariance * z - xz * xz - yz * yz
        let a0 = xz * (xz * yy - yz * xy) + yz * (yz * xx - xz * xy) - variance * covariance
        // Newton's method for the smallest root of the characteristic polynomial, from 0.
        var root = 0.0, value = a0
        for _ in 0..<100 {
            let derivative = a1 + root * (2 * a2 + 3 * a3 * root)
            guard derivative != 0 else { break }
            let next = root - value / derivative
            guard next.isFinite, next != root else { break }
            let nextValue = a0 + next * (a1 + next * (a2 + next * a3))
            guard abs(nextValue) < abs(value) else { break }
            root = next
            value = nextValue
        }
        let determinant = root * root - root * z + covariance
        guard abs(determinant) > 1e-12 * max(1, z * z) else { return nil }
        let centreX = (xz * (yy - root) - yz * xy) / determinant / 2
        let centreY = (yz * (xx - root) - xz * xy) / determinant / 2
        let radiusSquared = centreX * centreX + centreY * centreY + z
        guard radiusSquared > 0, radiusSquared.isFinite else { return nil }
        let centre = SIMD2(centreX, centreY) + mean
        let radius = radiusSquared.squareRoot()
        return FittedCircle(centre: centre, radius: radius, residual: residual(of: points, centre: centre, radius: radius))
    }

    /// A fit that ignores points off the circle (e.g. where something covers part of a hole):
    /// circles through triples of points spread around the list vote with the number of
    /// points within `inlierTolerance`; the best one's inliers are refitted with `taubin`.
    /// Deterministic (the triples are chosen systematically). Nil when no circle has at least
    /// `minimumInlierFraction` of the points.
    public static func robust(_ points: [SIMD2<Double>], inlierTolerance: Double,
                              minimumInlierFraction: Double = 0.3) -> FittedCircle? {
        guard points.count >= 3, inlierTolerance > 0 else { return nil }
        let count = points.count
        var bestInliers: [SIMD2<Double>] = []
        // Triples (i, i + s, i + 2s) for a few spans s, so that both whole circles and arcs are sampled.
        let starts = Swift.min(count, 40)
        for spanFraction in [1.0 / 3, 1.0 / 4, 1.0 / 6, 1.0 / 10] {
            let span = Swift.max(1, Int(Double(count) * spanFraction))
            for startIndex in 0..<starts {
                let first = startIndex * count / starts
                guard let circle = circleThrough(points[first], points[(first + span) % count],
                                                 points[(first + 2 * span) % count]) else { continue }
                var inliers: [SIMD2<Double>] = []
                for point in points {
                    let offset = point - circle.centre
                    if abs((offset * offset).sum().squareRoot() - circle.radius) <= inlierTolerance { inliers.append(point) }
                }
                if inliers.count > bestInliers.count { bestInliers = inliers }
            }
        }
        guard Double(bestInliers.count) >= minimumInlierFraction * Double(count) else { return nil }
        return taubin(bestInliers)
    }

    /// The circle through three points; nil when they are collinear.
    public static func circleThrough(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>) -> FittedCircle? {
        let determinant = 2 * (a.x * (b.y - c.y) + b.x * (c.y - a.y) + c.x * (a.y - b.y))
        guard abs(determinant) > 1e-9 else { return nil }
        let a2 = (a * a).sum(), b2 = (b * b).sum(), c2 = (c * c).sum()
        let x = (a2 * (b.y - c.y) + b2 * (c.y - a.y) + c2 * (a.y - b.y)) / determinant
        let y = (a2 * (c.x - b.x) + b2 * (a.x - c.x) + c2 * (b.x - a.x)) / determinant
        let centre = SIMD2(x, y)
        let offset = a - centre
        return FittedCircle(centre: centre, radius: (offset * offset).sum().squareRoot(), residual: 0)
    }

    /// The root-mean-square distance of `points` from the circle.
    public static func residual(of points: [SIMD2<Double>], centre: SIMD2<Double>, radius: Double) -> Double {
        guard !points.isEmpty else { return 0 }
        var sum = 0.0
        for point in points {
            let offset = point - centre
            let distance = (offset * offset).sum().squareRoot() - radius
            sum += distance * distance
        }
        return (sum / Double(points.count)).squareRoot()
    }
}
