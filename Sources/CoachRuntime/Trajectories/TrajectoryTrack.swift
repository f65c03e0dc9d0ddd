import CoachVision
import Foundation

/// One object centre found in one analysed frame, in the full frame's pixels (origin top-left).
struct TrackedPoint: Equatable, Sendable {
    /// Horizontal position in pixels.
    var x: Double
    /// Vertical position in pixels, from the top.
    var y: Double
    /// The enclosing-circle radius in pixels.
    var radius: Double
    /// The frame's time in seconds.
    var time: Double
}

/// An object followed from analysed frame to analysed frame by `TrajectoryDetector`.
///
/// It predicts where the object will be next: with one point, where it was; with two, at
/// constant velocity; with three or more, `x` linear and `y` quadratic in time (a thrown object
/// under gravity, no drag) fitted to the last six points.
struct TrajectoryTrack: Sendable {
    /// The object's centres, oldest first (the last `retainedPointCount` are kept).
    private(set) var points: [TrackedPoint]
    /// The time of the track's first point.
    let firstTime: Double
    /// Analysed frames since the object was last found.
    var missedFrames = 0
    /// The identity given when the track was first reported.
    var identifier: UUID?

    /// A track starting at `point`.
    init(first point: TrackedPoint) {
        points = [point]
        firstTime = point.time
    }

    /// The latest point.
    var last: TrackedPoint { points[points.count - 1] }

    /// Adds the object's centre in a new frame, keeping at most `limit` points.
    mutating func append(_ point: TrackedPoint, keeping limit: Int) {
        points.append(point)
        if points.count > limit { points.removeFirst(points.count - limit) }
        missedFrames = 0
    }

    /// The mean radius of the last `count` points.
    func meanRadius(overLast count: Int) -> Double {
        let recent = points.suffix(max(1, count))
        return recent.reduce(0) { $0 + $1.radius } / Double(recent.count)
    }

    /// Where the object is expected at `time`.
    func predictedPosition(at time: Double) -> (x: Double, y: Double) {
        let latest = last
        switch points.count {
        case 1:
            return (latest.x, latest.y)
        case 2:
            let earlier = points[0]
            let interval = latest.time - earlier.time
            guard interval > 0 else { return (latest.x, latest.y) }
            let elapsed = time - latest.time
            return (latest.x + (latest.x - earlier.x) / interval * elapsed,
                    latest.y + (latest.y - earlier.y) / interval * elapsed)
        default:
            let recent = Array(points.suffix(6))
            let times = recent.map { $0.time - latest.time }
            let elapsed = time - latest.time
            let x = TrajectoryTrack.lineValue(times: times, values: recent.map(\.x), at: elapsed) ?? latest.x
            let y = ParabolaFit(x: times, y: recent.map(\.y))?.value(at: elapsed)
                ?? TrajectoryTrack.lineValue(times: times, values: recent.map(\.y), at: elapsed) ?? latest.y
            return (x, y)
        }
    }

    /// How far from the prediction (pixels) a blob may be and still be this object at `time`:
    /// a new track may jump `maximumDisplacement`; an older one a margin that grows with its
    /// size, the analysis grid (`downscaleFactor` pixels) and its speed.
    func gate(at time: Double, downscaleFactor: Int, maximumDisplacement: Double) -> Double {
        let radius = meanRadius(overLast: 5)
        let grid = 2 * Double(downscaleFactor)
        guard points.count >= 2 else { return maximumDisplacement + radius + grid }
        let previous = points[points.count - 2]
        let interval = last.time - previous.time
        let speed = interval > 0
            ? ((last.x - previous.x) * (last.x - previous.x) + (last.y - previous.y) * (last.y - previous.y))
                .squareRoot() / interval
            : 0
        let displacement = speed * max(0, time - last.time)
        if points.count == 2 { return max(3, 2 * radius + grid + 0.5 * displacement) }
        return max(3, 1.5 * radius + grid + 0.25 * displacement)
    }

    /// The least-squares line through `(times[i], values[i])` evaluated at `time`; nil when
    /// the times are all equal.
    static func lineValue(times: [Double], values: [Double], at time: Double) -> Double? {
        guard let line = fitLine(times: times, values: values) else { return nil }
        return line.intercept + line.slope * time
    }

    /// The least-squares line `value = intercept + slope·time`; nil when the times are all equal.
    static func fitLine(times: [Double], values: [Double]) -> (intercept: Double, slope: Double)? {
        let count = Double(times.count)
        guard times.count >= 2, values.count == times.count else { return nil }
        let meanTime = times.reduce(0, +) / count
        let meanValue = values.reduce(0, +) / count
        var covariance = 0.0, variance = 0.0
        for index in times.indices {
            covariance += (times[index] - meanTime) * (values[index] - meanValue)
            variance += (times[index] - meanTime) * (times[index] - meanTime)
        }
        guard variance > 0 else { return nil }
        let slope = covariance / variance
        return (meanValue - slope * meanTime, slope)
    }
}
