/// A key pose of a motion: the pose, when it is reached, and how fast the body moves through it.
public struct PoseKeyframe: Equatable, Sendable {
    /// How the velocity at a keyframe is chosen.
    public enum Tangent: Equatable, Sendable {
        /// The mean rate between the neighbouring keyframes (a Catmull-Rom spline).
        case automatic
        /// At rest: a turning point (top of a backswing) or a held pose.
        case still
        /// `factor` times the mean rate over the segment ending here: a peak of speed, as at a
        /// throw's release, where the hand is fastest (factor 2 or more makes the speed grow
        /// up to the keyframe).
        case peak(factor: Float)
    }

    /// Seconds from the start of the motion.
    public var time: Double
    /// The pose.
    public var pose: BodyPose
    /// The velocity through it.
    public var tangent: Tangent

    /// A key pose at `time`.
    public init(time: Double, pose: BodyPose, tangent: Tangent = .automatic) {
        self.time = time
        self.pose = pose
        self.tangent = tangent
    }
}

/// A motion as joint-angle trajectories: cubic Hermite curves through key poses, clamped to the
/// joint limits. Sampling it at any time gives a pose for forward kinematics.
public struct MotionTrack: Sendable {
    /// The key poses in time order.
    public private(set) var keyframes: [PoseKeyframe]
    /// The limits every sampled pose is clamped to.
    public var limits: JointLimits
    private var tangents: [[Float]]

    /// A track through `keyframes` (sorted by time; keyframes at the same time keep the later).
    public init(keyframes: [PoseKeyframe], limits: JointLimits = .human) {
        var sorted: [PoseKeyframe] = []
        for keyframe in keyframes.sorted(by: { $0.time < $1.time }) {
            if let last = sorted.last, keyframe.time - last.time < 1e-6 { sorted[sorted.count - 1] = keyframe }
            else { sorted.append(keyframe) }
        }
        self.keyframes = sorted
        self.limits = limits
        let count = BodyAngle.allCases.count
        tangents = sorted.indices.map { index in
            let keyframe = sorted[index]
            switch keyframe.tangent {
            case .still:
                return [Float](repeating: 0, count: count)
            case .peak(let factor):
                guard index > 0 else { return [Float](repeating: 0, count: count) }
                let previous = sorted[index - 1]
                let span = Float(keyframe.time - previous.time)
                return (0..<count).map { factor * (keyframe.pose.values[$0] - previous.pose.values[$0]) / span }
            case .automatic:
                guard index > 0, index + 1 < sorted.count else { return [Float](repeating: 0, count: count) }
                let previous = sorted[index - 1], next = sorted[index + 1]
                let span = Float(next.time - previous.time)
                return (0..<count).map { (next.pose.values[$0] - previous.pose.values[$0]) / span }
            }
        }
    }

    /// When the track starts.
    public var startTime: Double { keyframes.first?.time ?? 0 }
    /// When the track ends.
    public var endTime: Double { keyframes.last?.time ?? 0 }

    /// The pose at `time` (the first or last key pose outside the track), within the limits.
    public func pose(at time: Double) -> BodyPose {
        guard let first = keyframes.first, let last = keyframes.last else { return .standing }
        if time <= first.time { return limits.clamp(first.pose) }
        if time >= last.time { return limits.clamp(last.pose) }
        var low = 0, high = keyframes.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if keyframes[middle].time <= time { low = middle } else { high = middle }
        }
        let a = keyframes[low], b = keyframes[high]
        let h = Float(b.time - a.time)
        let s = Float((time - a.time) / (b.time - a.time))
        let s2 = s * s, s3 = s2 * s
        let h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2
        var values = a.pose.values
        let ta = tangents[low], tb = tangents[high]
        for index in values.indices {
            values[index] = h00 * a.pose.values[index] + h10 * h * ta[index] + h01 * b.pose.values[index] + h11 * h * tb[index]
        }
        return limits.clamp(BodyPose(values: values))
    }
}
