import CoachVision
import Foundation

/// The confidence `TrajectoryDetector` gives a run of object centres: how much they look like
/// the flight of a thrown object, 0…1. It is the product of five scores, all in 0…1:
///
/// - **fit**: `exp(−(g² + k²) / 2)`, where `g` is the RMS distance of the points from the fitted
///   parabola `y(x)` (vertical residuals divided by `√(1 + slope²)`) and `k` the RMS residual of
///   `x` from a straight line in time (a thrown object keeps its horizontal speed), both divided
///   by the noise tolerance `τ = 0.75·f + 0.15·r` pixels (`f` the analysis downscale factor,
///   whose grid limits centroid precision; `r` the mean radius, as blob shapes jitter with size).
/// - **gravity**: a thrown path bends downwards (∩). The sagitta `s` of the fitted parabola over
///   the points' horizontal extent (pixels, positive for ∩) must not be below `−τ`; beyond, the
///   score is `exp(−((s + τ)/τ)²)` — a pendulum's or a swinging limb's ∪-shaped arc scores ~0.
/// - **span**: `1 − exp(−(d / 4r)²)`, `d` the distance from the first to the last point: an
///   object that barely moves compared with its size gives no evidence of a path.
/// - **count**: `1 − exp(−(n − 3) / 2)` for `n` points: three points always fit a parabola
///   exactly, so only the points beyond three are evidence (0.97 for the app's 10).
///
/// Real parabolic flights score about 0.9–0.97; clutter (random flicker, a swinging limb) scores
/// near 0.
enum TrajectoryConfidence {
    /// The confidence of `points` (full-frame pixels, origin top-left) analysed with
    /// `downscaleFactor`; nil when no parabola `y(x)` fits them (fewer than three distinct `x`).
    static func confidence(of points: [TrackedPoint], downscaleFactor: Int) -> Double? {
        let count = points.count
        let xs = points.map(\.x)
        let ys = points.map(\.y)
        guard count >= 3, let fit = ParabolaFit(x: xs, y: ys) else { return nil }
        let radius = points.reduce(0) { $0 + $1.radius } / Double(count)
        let tolerance = max(0.5, 0.75 * Double(downscaleFactor) + 0.15 * radius)

        var geometric = 0.0
        for index in 0..<count {
            let slope = fit.slope(at: xs[index])
            let distance = fit.residuals[index] / (1 + slope * slope).squareRoot()
            geometric += distance * distance
        }
        geometric = (geometric / Double(count)).squareRoot() / tolerance

        var kinematic = 0.0
        if let line = TrajectoryTrack.fitLine(times: points.map(\.time), values: xs) {
            for point in points {
                let residual = point.x - (line.intercept + line.slope * point.time)
                kinematic += residual * residual
            }
            kinematic = (kinematic / Double(count)).squareRoot() / tolerance
        }
        let fitScore = exp(-(geometric * geometric + kinematic * kinematic) / 2)

        // In top-left pixel coordinates a ∩ path has a > 0 (y grows downwards).
        let extent = (xs.max() ?? 0) - (xs.min() ?? 0)
        let sagitta = fit.a * (extent / 2) * (extent / 2)
        let gravityScore = sagitta >= -tolerance ? 1 : exp(-pow((sagitta + tolerance) / tolerance, 2))

        let first = points[0], latest = points[count - 1]
        let distance = ((latest.x - first.x) * (latest.x - first.x) + (latest.y - first.y) * (latest.y - first.y))
            .squareRoot()
        let spanScore = 1 - exp(-pow(distance / (4 * max(radius, 0.5)), 2))
        let countScore = 1 - exp(-Double(count - 3) / 2)

        let confidence = fitScore * gravityScore * spanScore * countScore
        return confidence.isFinite ? min(1, max(0, confidence)) : nil
    }
}
