import CoachData
import CoachModels
import CoachVision
import Foundation

/// A bag's flight as the game follows it: its centres over time and its fitted parabola.
public struct FlightPath: Equatable, Sendable {
    /// When each centre was seen (seconds), increasing.
    public var times: [Double]
    /// The bag's centres in pixels (origin top-left).
    public var points: [SIMD2<Double>]
    /// y = a·x² + b·x + c in Vision's normalised coordinates (origin bottom-left).
    public var equationCoefficients: SIMD3<Double>
    /// The trajectory detector's confidence.
    public var confidence: Double
    /// The bag's mean radius in pixels.
    public var radius: Double

    /// A path from its parts.
    public init(times: [Double], points: [SIMD2<Double>], equationCoefficients: SIMD3<Double>, confidence: Double,
                radius: Double) {
        self.times = times
        self.points = points
        self.equationCoefficients = equationCoefficients
        self.confidence = confidence
        self.radius = radius
    }
}

/// The measurements of one throw, each from the flight, the poses and the board (the Action &
/// Vision app's metrics).
public enum ThrowMeasurement {
    /// `path` without the points at either end where the bag barely moved across (still in the
    /// hand, or come to rest): each kept step moves at least 30 % of the median step sideways.
    public static func inFlight(_ path: FlightPath) -> FlightPath {
        guard path.points.count >= 4 else { return path }
        let steps = zip(path.points, path.points.dropFirst()).map { abs($1.x - $0.x) }
        let median = steps.sorted()[steps.count / 2]
        guard median > 0 else { return path }
        var first = 0, last = path.points.count - 1
        while first < last - 2, steps[first] < 0.3 * median { first += 1 }
        while last > first + 2, steps[last - 1] < 0.3 * median { last -= 1 }
        var trimmed = path
        trimmed.points = Array(path.points[first...last])
        trimmed.times = Array(path.times[first...last])
        return trimmed
    }

    /// `path` without leading centres that its flight does not explain: the later half of the
    /// centres (at least five) gives the parabola and the uniform sideways motion, and the first
    /// centres are dropped while they lie more than `reach` pixels from where those put the bag at
    /// their moment (the detector's first window of a flight can hold a moving arm or body from
    /// before the release).
    public static func withoutLeadingStrays(_ path: FlightPath, reach: Double, width: Int, height: Int) -> FlightPath {
        let count = path.points.count
        guard count >= 7 else { return path }
        var later = path
        let from = min(count / 2, count - 5)
        later.times = Array(path.times[from...])
        later.points = Array(path.points[from...])
        guard let fit = ParabolaFit(x: later.points.map { $0.x / Double(width) }, y: later.points.map { 1 - $0.y / Double(height) })
        else { return path }
        later.equationCoefficients = SIMD3(fit.a, fit.b, fit.c)
        var first = 0
        while first < from, let predicted = predictedPoint(of: later, at: path.times[first], width: width, height: height),
              ((predicted - path.points[first]) * (predicted - path.points[first])).sum().squareRoot() > reach {
            first += 1
        }
        var trimmed = path
        trimmed.times = Array(path.times[first...])
        trimmed.points = Array(path.points[first...])
        return trimmed
    }

    /// The horizontal position as a straight-line function of time (least squares), pixels per
    /// second and pixels at time 0; nil for fewer than two distinct times.
    static func horizontalMotion(of path: FlightPath) -> (velocity: Double, offset: Double)? {
        let n = Double(path.times.count)
        guard path.times.count >= 2 else { return nil }
        let meanT = path.times.reduce(0, +) / n, meanX = path.points.reduce(0) { $0 + $1.x } / n
        var stt = 0.0, stx = 0.0
        for (t, p) in zip(path.times, path.points) {
            stt += (t - meanT) * (t - meanT)
            stx += (t - meanT) * (p.x - meanX)
        }
        guard stt > 0 else { return nil }
        let velocity = stx / stt
        return (velocity, meanX - velocity * meanT)
    }

    /// The bag's position the path predicts at `time` (pixels): x moves uniformly, y follows the parabola.
    static func predictedPoint(of path: FlightPath, at time: Double, width: Int, height: Int) -> SIMD2<Double>? {
        guard let motion = horizontalMotion(of: path) else { return nil }
        let x = motion.offset + motion.velocity * time
        let u = x / Double(width)
        let c = path.equationCoefficients
        let v = c.x * u * u + c.y * u + c.z
        return SIMD2(x, (1 - v) * Double(height))
    }

    /// The mean speed along the path in metres per second: the parabola's length between the
    /// first and last centres (pixels, converted with `metresPerPixel`) over the time between them.
    public static func speed(of path: FlightPath, metresPerPixel: Double, width: Int, height: Int) -> Double {
        guard let first = path.points.first, let last = path.points.last, let start = path.times.first,
              let end = path.times.last, end > start else { return 0 }
        let c = path.equationCoefficients
        let steps = 200
        var length = 0.0
        var previous: SIMD2<Double>? = nil
        for step in 0...steps {
            let x = first.x + (last.x - first.x) * Double(step) / Double(steps)
            let u = x / Double(width)
            let point = SIMD2(x, (1 - (c.x * u * u + c.y * u + c.z)) * Double(height))
            if let previous { length += ((point - previous) * (point - previous)).sum().squareRoot() }
            previous = point
        }
        return length * metresPerPixel / (end - start)
    }

    /// The release: the pose, among those `within` the time window, whose wrist (of `wrists`)
    /// best matches the bag as the path puts it at that moment — in place and in velocity (the
    /// bag leaves the hand where the hand is, moving as the hand moves; the other wrist and the
    /// arm's follow-through do not match both). A wrist moving sideways against the flight (a
    /// wind-up) is never the release. Returns the time, the pose and which wrist threw
    /// (body18 index), or nil without poses.
    static func release(of path: FlightPath, poses: [PoseFrame], within window: ClosedRange<Double>, wrists: [Int] = [4, 7],
                        width: Int, height: Int) -> (time: Double, pose: [Keypoint?], wrist: Int)? {
        guard let motion = horizontalMotion(of: path) else { return nil }
        let w = Double(width), h = Double(height), c = path.equationCoefficients
        func wristPoint(_ frame: PoseFrame, _ wrist: Int) -> SIMD2<Double>? {
            guard wrist < frame.keypoints.count, let p = frame.keypoints[wrist] else { return nil }
            return SIMD2(Double(p.x) * w, Double(p.y) * h)
        }
        var best: (cost: Double, time: Double, pose: [Keypoint?], wrist: Int)? = nil
        for index in poses.indices where window.contains(poses[index].time) {
            let frame = poses[index]
            guard let predicted = predictedPoint(of: path, at: frame.time, width: width, height: height) else { continue }
            // The bag's velocity there (pixels per second): x moves uniformly, y along the parabola.
            let u = predicted.x / w
            let bagVelocity = SIMD2(motion.velocity, -(2 * c.x * u + c.y) * h / w * motion.velocity)
            let before = index > 0 ? poses[index - 1] : nil, after = index + 1 < poses.count ? poses[index + 1] : nil
            for wrist in wrists {
                guard let position = wristPoint(frame, wrist) else { continue }
                var velocityError = 0.0, interval = 0.0
                if let before, let after, after.time > before.time,
                   let p0 = wristPoint(before, wrist), let p1 = wristPoint(after, wrist) {
                    interval = (after.time - before.time) / 2
                    let velocity = (p1 - p0) / (after.time - before.time)
                    // A hand moving away from where the bag flies is not letting it go.
                    guard velocity.x * bagVelocity.x > 0 else { continue }
                    velocityError = (((velocity - bagVelocity) * (velocity - bagVelocity)).sum()).squareRoot() * interval
                }
                let distance = ((position - predicted) * (position - predicted)).sum().squareRoot()
                let cost = distance + velocityError
                if best == nil || cost < best!.cost { best = (cost, frame.time, frame.keypoints, wrist) }
            }
        }
        return best.map { ($0.time, $0.pose, $0.wrist) }
    }

    /// The bag still in the hand: the last of the path's centres that lies within `reach` pixels of
    /// a wrist in the pose of the same moment (the bag moves with the hand until it is let go).
    /// Returns that centre's index and the pose and wrist; nil when the bag was first seen free.
    static func lastHeld(in path: FlightPath, poses: [PoseFrame], reach: Double, width: Int, height: Int)
        -> (index: Int, time: Double, pose: [Keypoint?], wrist: Int)? {
        var held: (index: Int, time: Double, pose: [Keypoint?], wrist: Int)? = nil
        var poseIndex = 0
        for (index, (time, point)) in zip(path.times, path.points).enumerated() {
            while poseIndex + 1 < poses.count, poses[poseIndex + 1].time <= time + 1e-6 { poseIndex += 1 }
            guard poseIndex < poses.count, abs(poses[poseIndex].time - time) < 1e-3 else { continue }
            let pose = poses[poseIndex].keypoints
            for wrist in [4, 7] where wrist < pose.count {
                guard let p = pose[wrist] else { continue }
                let position = SIMD2(Double(p.x) * Double(width), Double(p.y) * Double(height))
                if ((position - point) * (position - point)).sum().squareRoot() <= reach { held = (index, time, pose, wrist) }
            }
        }
        return held
    }

    /// The throwing wrist (body18 index 4 or 7): the one that travels further in the `window`
    /// around the release (the throwing hand swings; the other hangs or balances).
    static func throwingWrist(poses: [PoseFrame], within window: ClosedRange<Double>) -> Int? {
        var travelled: [Int: Double] = [4: 0, 7: 0]
        var previous: [Keypoint?]? = nil
        for frame in poses where window.contains(frame.time) {
            if let previous {
                for wrist in [4, 7] where wrist < frame.keypoints.count && wrist < previous.count {
                    guard let a = previous[wrist], let b = frame.keypoints[wrist] else { continue }
                    travelled[wrist, default: 0] += Double(hypot(b.x - a.x, b.y - a.y))
                }
            }
            previous = frame.keypoints
        }
        guard travelled.values.contains(where: { $0 > 0 }) else { return nil }
        return travelled[4, default: 0] >= travelled[7, default: 0] ? 4 : 7
    }

    /// The angle of the forearm (elbow → `wrist`, body18 indices 3→4 or 6→7) above the horizontal,
    /// in degrees, measured towards `direction` (+1: the throw goes right in the image, −1: left).
    public static func releaseAngle(pose: [Keypoint?], wrist: Int, direction: Double, width: Int, height: Int) -> Double? {
        let elbow = wrist - 1
        guard wrist < pose.count, let w = pose[wrist], let e = pose[elbow] else { return nil }
        let dx = Double(w.x - e.x) * Double(width) * direction, dy = -Double(w.y - e.y) * Double(height)
        guard dx != 0 || dy != 0 else { return nil }
        return atan2(dy, dx) * 180 / .pi
    }

    /// The throw type: the classifier's mean probabilities over its windows that end between the
    /// release and `after` seconds later (every `stride` frames), read for the non-background
    /// classes. Returns the type, its probability and the top class background included.
    static func throwType(model: ActionClassifierModel, poses: [PoseFrame], release: Double, after: Double, stride: Int)
        -> (type: String, confidence: Double, topLabel: String)? {
        let windowSeconds = Double(model.windowLength) / model.frameRate
        let frames = poses.filter { $0.time >= release - windowSeconds - 0.1 && $0.time <= release + after + 1e-9 }
        guard frames.count >= 2 else { return nil }
        let sequence = PoseSequence(jointSet: .body18, frames: frames,
                                    source: PoseSource(file: URL(fileURLWithPath: "game"), sequence: "throw"))
        guard var windows = try? model.windows(covering: sequence, stride: stride) else { return nil }
        let ending = windows.filter { $0.endTime >= release && $0.endTime <= release + after + 1e-9 }
        if !ending.isEmpty { windows = ending }
        let probabilities = model.probabilities(for: windows)
        guard !probabilities.isEmpty else { return nil }
        var mean = [Double](repeating: 0, count: model.labels.count)
        for row in probabilities { for (i, p) in row.enumerated() where i < mean.count { mean[i] += Double(p) / Double(probabilities.count) } }
        let background = Set(PoseClasses.conventionalBackgroundNames)
        let top = mean.indices.max { mean[$0] < mean[$1] }!
        let throwClasses = mean.indices.filter { !background.contains(model.labels[$0].lowercased()) }
        guard let best = throwClasses.max(by: { mean[$0] < mean[$1] }) else { return nil }
        return (model.labels[best], mean[best], model.labels[top])
    }

    /// Where a bag landed. Its path, continued along its parabola past the last point seen in
    /// flight, is searched for a bag-sized change from `reference` (the field before the throw):
    /// a bag resting there landed on the board or beside it, whichever its centre says. With no
    /// bag anywhere along the way, it went through the hole if the way passes over the hole, and
    /// otherwise it left the picture (missed).
    static func landing(of path: FlightPath, now frame: RGBImage, reference: RGBImage, board: BoardGeometry)
        -> (landing: ThrowLanding, point: SIMD2<Double>) {
        guard let last = path.points.last else { return (.missed, .zero) }
        let radius = max(2, path.radius)
        let direction: Double = path.points.count >= 2 && path.points[path.points.count - 2].x > last.x ? -1 : 1
        let width = Double(frame.width), height = Double(frame.height)
        let c = path.equationCoefficients
        // The way on: points along the parabola, a bag radius apart, up to 12 % of the frame onwards.
        var way: [SIMD2<Double>] = [last]
        var x = last.x
        while abs(x - last.x) < 0.12 * width {
            x += direction * radius
            let u = x / width
            let y = (1 - (c.x * u * u + c.y * u + c.z)) * height
            guard x >= 0, x < width, y >= 0, y < height else { break }
            way.append(SIMD2(x, y))
        }
        var changed = Set<Int>()
        if frame.width == reference.width, frame.height == reference.height {
            let reach = 3 * radius
            for centre in way {
                let x0 = max(0, Int(centre.x - reach)), x1 = min(frame.width - 1, Int(centre.x + reach))
                let y0 = max(0, Int(centre.y - reach)), y1 = min(frame.height - 1, Int(centre.y + reach))
                guard x0 <= x1, y0 <= y1 else { continue }
                for py in y0...y1 {
                    for px in x0...x1 where !changed.contains(py * frame.width + px) {
                        let a = frame[px, py], b = reference[px, py]
                        let change = abs(Int(a.red) - Int(b.red)) + abs(Int(a.green) - Int(b.green)) + abs(Int(a.blue) - Int(b.blue))
                        if change > 90 { changed.insert(py * frame.width + px) }
                    }
                }
            }
        }
        // A bag at rest covers at least a third of a disc of half the flight's radius (the radius of
        // a moving bag includes its motion blur).
        if Double(changed.count) >= 0.3 * .pi * radius * radius / 4 {
            var sum = SIMD2<Double>(0, 0)
            for index in changed { sum += SIMD2(Double(index % frame.width) + 0.5, Double(index / frame.width) + 0.5) }
            let resting = sum / Double(changed.count)
            return (board.contains(resting) ? .board : .missed, resting)
        }
        let hole = board.hole
        if way.contains(where: { (($0 - hole.centre) * ($0 - hole.centre)).sum().squareRoot() <= hole.radius + radius }) {
            return (.hole, hole.centre)
        }
        return (.missed, way.last ?? last)
    }
}
