import CoachData
import Foundation

/// One trajectory found by `TrajectoryDetector`: the parabolic path of a small moving object,
/// as Vision's `VNTrajectoryObservation` reports it.
///
/// Coordinates are Vision's: normalised 0…1 with the origin at the BOTTOM-LEFT, and, as for
/// every Vision request, relative to the request's region of interest (the whole frame by
/// default), which `regionOfInterest` records. `imagePoint(_:imageWidth:imageHeight:)` gives a
/// point in the full frame's pixel coordinates (origin top-left).
public struct TrajectoryObservation: Equatable, Sendable {
    /// The trajectory's identity: the same from frame to frame while it is followed.
    public var uuid: UUID
    /// The centres of the moving object in the last `trajectoryLength` analysed frames it was
    /// found in, oldest first.
    public var detectedPoints: [NormalizedPoint]
    /// The time (seconds) of the frame each detected point was found in (a Coach addition).
    public var detectedPointTimes: [Double]
    /// Five points on the fitted parabola, at the `x` of the last five detected points, oldest first.
    public var projectedPoints: [NormalizedPoint]
    /// `(a, b, c)` of the fitted parabola `y = a·x² + b·x + c` through `detectedPoints`.
    public var equationCoefficients: SIMD3<Double>
    /// The object's mean enclosing-circle radius over `detectedPoints`, as a fraction of the
    /// frame's longer side (the unit of `objectMinimumNormalizedRadius`).
    public var movingAverageRadius: Double
    /// From the time of the trajectory's first point (which may precede `detectedPoints`) to
    /// the latest frame it was seen in, in seconds.
    public var timeRange: ClosedRange<Double>
    /// How much the path looks like a thrown object's, 0…1 (see `TrajectoryDetector`).
    public var confidence: Double
    /// The region the coordinates are relative to, in Vision's normalised frame coordinates
    /// (a `NormalizedRect` whose `y` is measured from the BOTTOM).
    public var regionOfInterest: NormalizedRect

    /// An observation from its parts.
    public init(uuid: UUID, detectedPoints: [NormalizedPoint], detectedPointTimes: [Double] = [],
                projectedPoints: [NormalizedPoint],
                equationCoefficients: SIMD3<Double>, movingAverageRadius: Double,
                timeRange: ClosedRange<Double>, confidence: Double,
                regionOfInterest: NormalizedRect = NormalizedRect(x: 0, y: 0, width: 1, height: 1)) {
        self.uuid = uuid
        self.detectedPoints = detectedPoints
        self.detectedPointTimes = detectedPointTimes
        self.projectedPoints = projectedPoints
        self.equationCoefficients = equationCoefficients
        self.movingAverageRadius = movingAverageRadius
        self.timeRange = timeRange
        self.confidence = confidence
        self.regionOfInterest = regionOfInterest
    }

    /// `timeRange`'s length in seconds.
    public var duration: Double { timeRange.upperBound - timeRange.lowerBound }

    /// The fitted parabola's `y` at `x` (both relative to `regionOfInterest`, bottom-left origin).
    public func equationValue(at x: Double) -> Double {
        (equationCoefficients.x * x + equationCoefficients.y) * x + equationCoefficients.z
    }

    /// `point` (relative to `regionOfInterest`) in the whole frame's normalised coordinates
    /// (still bottom-left origin).
    public func frameNormalizedPoint(_ point: NormalizedPoint) -> NormalizedPoint {
        NormalizedPoint(x: regionOfInterest.x + point.x * regionOfInterest.width,
                        y: regionOfInterest.y + point.y * regionOfInterest.height)
    }

    /// `point` (relative to `regionOfInterest`) in pixels of the `imageWidth × imageHeight`
    /// frame, origin at the TOP-LEFT (as `RGBImage` and drawing code use).
    public func imagePoint(_ point: NormalizedPoint, imageWidth: Int, imageHeight: Int) -> ImagePoint {
        frameNormalizedPoint(point).imagePoint(imageWidth: imageWidth, imageHeight: imageHeight)
    }
}
