import CoachRandom

/// A motion given as keyframe poses at increasing times, interpolated with a cubic
/// Hermite spline (Catmull–Rom tangents, zero velocity at the first and last key), so
/// every joint angle is a smooth function of time.
struct PoseKeyframes {
    private(set) var times: [Float] = []
    private(set) var poses: [StickFigurePose] = []

    /// Keyframes starting from `pose` at time 0.
    init(start pose: StickFigurePose) {
        times = [0]
        poses = [pose]
    }

    /// The time of the last key.
    var duration: Float { times.last ?? 0 }

    /// The last key's pose.
    var lastPose: StickFigurePose { poses[poses.count - 1] }

    /// Adds a key at `time` that changes `changes` (angles in degrees, lengths in metres)
    /// relative to the previous key. Each changed value is scaled by `amplitude` and, with
    /// `jitter` 1, varied by a normal draw from `generator` with a standard deviation of 8%
    /// of the value plus 3° (2 cm for lengths); `jitter` scales that spread.
    mutating func add(at time: Float, _ changes: [(StickFigurePose.Field, Float)],
                      amplitude: Float = 1, jitter: Float = 0,
                      using generator: inout SeededGenerator) {
        var pose = lastPose
        for (field, value) in changes {
            var v = value * amplitude
            if jitter > 0 {
                v += jitter * (0.08 * abs(v) + (field.isAngle ? 3 : 0.02)) * generator.nextNormal()
            }
            pose[field] = field.isAngle ? syntheticRadians(v) : v
        }
        append(pose, at: time)
    }

    /// Adds `pose` as a key at `time` (times must increase).
    mutating func append(_ pose: StickFigurePose, at time: Float) {
        let t = max(time, (times.last ?? 0) + 1e-3)
        times.append(t)
        poses.append(pose)
    }

    /// The interpolated pose at `time` (clamped to the first and last key).
    func pose(at time: Float) -> StickFigurePose {
        guard let first = times.first, let last = times.last, poses.count > 1 else { return poses[0] }
        if time <= first { return poses[0] }
        if time >= last { return poses[poses.count - 1] }
        var k = 0
        while k + 1 < times.count - 1 && times[k + 1] <= time { k += 1 }
        let t0 = times[k], t1 = times[k + 1]
        let h = t1 - t0
        let s = (time - t0) / h
        let p0 = poses[k].values, p1 = poses[k + 1].values
        let m0 = tangent(at: k) * h
        let m1 = tangent(at: k + 1) * h
        let s2 = s * s, s3 = s2 * s
        let h00 = 2 * s3 - 3 * s2 + 1
        let h10 = s3 - 2 * s2 + s
        let h01 = -2 * s3 + 3 * s2
        let h11 = s3 - s2
        return StickFigurePose(values: p0 * h00 + m0 * h10 + p1 * h01 + m1 * h11)
    }

    private func tangent(at k: Int) -> SIMD32<Float> {
        if k == 0 || k == times.count - 1 { return .zero }
        return (poses[k + 1].values - poses[k - 1].values) / (times[k + 1] - times[k - 1])
    }
}
