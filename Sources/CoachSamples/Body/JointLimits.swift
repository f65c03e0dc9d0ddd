/// The range of every degree of freedom of the sample body. Angles follow normal active ranges
/// of motion of adults (AAOS, Greene & Heckman 1994; trunk and neck after Kapandji, The
/// Physiology of the Joints), widened where athletes exceed them: a pitcher's shoulder reaches
/// about 170° of external rotation at the end of arm cocking (Fleisig et al. 1995, Am J Sports
/// Med 23:233), part of it scapular and trunk motion, so axial rotation stops at −150°.
public struct JointLimits: Sendable {
    /// Lower bounds, indexed by `BodyAngle.rawValue` (radians or metres).
    public var lower: [Float]
    /// Upper bounds, indexed by `BodyAngle.rawValue`.
    public var upper: [Float]

    /// The limits of an adult body.
    public static let human: JointLimits = {
        var lower = [Float](repeating: -.infinity, count: BodyAngle.allCases.count)
        var upper = [Float](repeating: .infinity, count: BodyAngle.allCases.count)
        func set(_ angle: BodyAngle, _ low: Float, _ high: Float) {
            lower[angle.rawValue] = angle.isTranslation ? low : radians(low)
            upper[angle.rawValue] = angle.isTranslation ? high : radians(high)
        }
        set(.rootLift, 0, 0.6)
        set(.trunkFlexion, -30, 100)
        set(.trunkLateralBend, -35, 35)
        set(.trunkTwist, -55, 55)
        set(.neckFlexion, -50, 70)
        set(.neckTwist, -75, 75)
        for side in [BodyAngle.rightShoulderPlane, .leftShoulderPlane] {
            let base = side.rawValue
            set(BodyAngle(rawValue: base)!, -60, 140)
            set(BodyAngle(rawValue: base + 1)!, -70, 180)
            set(BodyAngle(rawValue: base + 2)!, -150, 90)
            set(BodyAngle(rawValue: base + 3)!, 0, 150)
        }
        for side in [BodyAngle.rightHipFlexion, .leftHipFlexion] {
            let base = side.rawValue
            set(BodyAngle(rawValue: base)!, -30, 130)
            set(BodyAngle(rawValue: base + 1)!, -20, 50)
            set(BodyAngle(rawValue: base + 2)!, 0, 150)
        }
        set(.rightHipRotation, -45, 45)
        set(.leftHipRotation, -45, 45)
        return JointLimits(lower: lower, upper: upper)
    }()

    /// Whether `pose` lies within the limits (with `tolerance` radians or metres to spare).
    public func contains(_ pose: BodyPose, tolerance: Float = 1e-5) -> Bool {
        for index in pose.values.indices where pose.values[index] < lower[index] - tolerance
            || pose.values[index] > upper[index] + tolerance {
            return false
        }
        return true
    }

    /// `pose` with every value clamped into its range.
    public func clamp(_ pose: BodyPose) -> BodyPose {
        var result = pose
        for index in result.values.indices {
            result.values[index] = min(max(result.values[index], lower[index]), upper[index])
        }
        return result
    }
}
