/// The joint angles (radians) and root placement (metres) of the stick figure at one
/// instant, stored in one SIMD vector so poses blend and interpolate as whole values.
///
/// Conventions (body frame: x forward, y up, z to the body's right):
/// - flexion moves a limb forward (0 = hanging straight down, π/2 = horizontal forward);
/// - abduction moves it out to its own side; knee flexion bends the shank backward;
/// - elbow flexion bends the forearm toward the front of the upper arm, and arm rotation
///   turns that bending plane about the upper arm (positive turns a sideways-raised
///   forearm upward);
/// - trunk lean tips the trunk forward about the hips, side bend to the right, twist turns
///   the right shoulder backward; head pitch nods down, head yaw looks right;
/// - `footLock` (0…1) keeps the supporting foot in place instead of the pelvis.
struct StickFigurePose {
    /// One degree of freedom of the pose.
    enum Field: Int, CaseIterable {
        case rootForward, rootSide, heading
        case trunkLean, trunkSideBend, trunkTwist
        case headPitch, headYaw
        case rightShoulderFlexion, rightShoulderAbduction, rightArmRotation, rightElbowFlexion
        case leftShoulderFlexion, leftShoulderAbduction, leftArmRotation, leftElbowFlexion
        case rightHipFlexion, rightHipAbduction, rightKneeFlexion
        case leftHipFlexion, leftHipAbduction, leftKneeFlexion
        case footLock

        /// Whether the field is an angle (keyframes give it in degrees).
        var isAngle: Bool {
            switch self {
            case .rootForward, .rootSide, .footLock: return false
            default: return true
            }
        }
    }

    var values: SIMD32<Float>

    init(values: SIMD32<Float> = .zero) {
        self.values = values
    }

    subscript(field: Field) -> Float {
        get { values[field.rawValue] }
        set { values[field.rawValue] = newValue }
    }

    /// A relaxed standing pose at the origin facing forward, feet locked.
    static var standing: StickFigurePose {
        var pose = StickFigurePose()
        pose[.rightShoulderAbduction] = syntheticRadians(8)
        pose[.leftShoulderAbduction] = syntheticRadians(8)
        pose[.rightShoulderFlexion] = syntheticRadians(4)
        pose[.leftShoulderFlexion] = syntheticRadians(4)
        pose[.rightElbowFlexion] = syntheticRadians(12)
        pose[.leftElbowFlexion] = syntheticRadians(12)
        pose[.rightHipAbduction] = syntheticRadians(4)
        pose[.leftHipAbduction] = syntheticRadians(4)
        pose[.rightKneeFlexion] = syntheticRadians(4)
        pose[.leftKneeFlexion] = syntheticRadians(4)
        pose[.footLock] = 1
        return pose
    }

    /// The pose `weight` of the way from `self` to `other`.
    func blended(with other: StickFigurePose, weight: Float) -> StickFigurePose {
        StickFigurePose(values: values + (other.values - values) * weight)
    }
}
