import Foundation

/// A sinusoidal wobble added to one pose field over part of a motion (waving, idle sway,
/// stretching), faded in and out so it starts and ends smoothly.
struct PoseOscillation {
    var field: StickFigurePose.Field
    /// Peak deviation in radians (metres for lengths).
    var amplitude: Float
    /// Cycles per second.
    var frequency: Float
    /// Phase in radians.
    var phase: Float
    /// When the wobble starts and ends (seconds of the motion).
    var start: Float
    var end: Float
    /// Seconds over which it fades in and out.
    var fade: Float = 0.25

    func value(at time: Float) -> Float {
        guard time > start, time < end else { return 0 }
        let ramp = max(fade, 1e-3)
        let envelope = min(1, (time - start) / ramp, (end - time) / ramp)
        let smooth = envelope * envelope * (3 - 2 * envelope)
        return amplitude * smooth * sin(2 * .pi * frequency * time + phase)
    }
}

/// One action's movement in its own frame (starting at the origin, facing +x): keyframes
/// plus oscillations, or a walking gait.
enum ScriptedMotion {
    case keyframed(PoseKeyframes, oscillations: [PoseOscillation])
    case walking(WalkingGait)

    /// The pose at `time` seconds into the motion (held before its start and after its end).
    func pose(at time: Float) -> StickFigurePose {
        switch self {
        case .keyframed(let keyframes, let oscillations):
            var pose = keyframes.pose(at: time)
            for oscillation in oscillations {
                pose[oscillation.field] += oscillation.value(at: time)
            }
            return pose
        case .walking(let gait):
            return gait.pose(at: time)
        }
    }
}

/// A walk: a gait cycle whose amplitude and speed ramp up at the start and down at the
/// end, moving the root forward along the local x axis.
struct WalkingGait {
    var duration: Float
    /// Seconds per stride (two steps).
    var strideDuration: Float
    /// Metres per stride.
    var strideLength: Float
    /// Seconds to reach full speed, and to stop.
    var ramp: Float
    var hipSwing: Float
    var kneeSwing: Float
    var armSwing: Float
    var lean: Float
    var phase: Float
    var base: StickFigurePose

    /// Seconds at each end spent standing with both feet down, so the cross-fades with
    /// neighbouring actions never blend a foot in mid-swing.
    private var pause: Float { min(0.2, duration / 6) }
    /// Seconds of walking proper.
    private var walkingDuration: Float { duration - 2 * pause }
    private var effectiveRamp: Float { min(ramp, walkingDuration / 2) }

    /// How far along full speed the walk is at `time` (0…1).
    func envelope(at time: Float) -> Float {
        let r = effectiveRamp
        let t = time - pause
        guard r > 0 else { return t >= 0 && t <= walkingDuration ? 1 : 0 }
        return max(0, min(1, t / r, (walkingDuration - t) / r))
    }

    /// The integral of the envelope from 0 to `time` (seconds walked at full speed).
    func walkedTime(at time: Float) -> Float {
        let r = effectiveRamp
        let d = walkingDuration
        let t = max(0, min(time - pause, d))
        if r <= 0 { return t }
        if t < r { return t * t / (2 * r) }
        if t <= d - r { return r / 2 + (t - r) }
        let left = d - t
        return d - r - left * left / (2 * r)
    }

    func pose(at time: Float) -> StickFigurePose {
        let envelope = envelope(at: time)
        let walked = walkedTime(at: time)
        let psi = 2 * .pi * walked / strideDuration + phase
        let swing = sin(psi)
        var pose = base
        pose[.rootForward] = strideLength / strideDuration * walked
        pose[.footLock] = 0
        pose[.rightHipFlexion] += envelope * hipSwing * swing
        pose[.leftHipFlexion] -= envelope * hipSwing * swing
        let rightKnee = max(0, cos(psi + 0.2)), leftKnee = max(0, cos(psi + .pi + 0.2))
        pose[.rightKneeFlexion] += envelope * kneeSwing * rightKnee * rightKnee
        pose[.leftKneeFlexion] += envelope * kneeSwing * leftKnee * leftKnee
        pose[.rightShoulderFlexion] -= envelope * armSwing * swing
        pose[.leftShoulderFlexion] += envelope * armSwing * swing
        pose[.rightElbowFlexion] += envelope * 0.5 * armSwing * max(0, -swing)
        pose[.leftElbowFlexion] += envelope * 0.5 * armSwing * max(0, swing)
        pose[.trunkLean] += envelope * lean
        pose[.trunkTwist] += envelope * 0.25 * hipSwing * swing
        return pose
    }
}
