/// The degrees of freedom of the sample body: where it stands, which way it faces, and its
/// joint angles (radians; translations in metres). Limb angles are side-agnostic (positive
/// abduction moves a limb away from the body on either side), so mirroring a pose swaps left
/// and right values and negates the few sided ones (`isNegatedByMirroring`).
///
/// The shoulder follows the ISB recommendation (Wu et al. 2005, J Biomech 38:981): plane of
/// elevation (0° = in the frontal plane, out to the side; 90° = forward; beyond 90° across the
/// body; negative = behind), elevation (0° hanging; negative values swing the arm back within
/// that plane) and axial rotation (negative = external, the cocked arm of a thrower).
public enum BodyAngle: Int, CaseIterable, Sendable {
    /// Sideways position of the pelvis in the motion's own frame (m, + = the body's initial left).
    case rootX
    /// Forward position of the pelvis in the motion's own frame (m).
    case rootZ
    /// Height of the lowest ankle above its resting height (m; > 0 only in jumps).
    case rootLift
    /// Which way the pelvis faces about the vertical (+ = turned to the left).
    case heading
    /// Trunk bend forward (+) or backward (−) relative to the pelvis.
    case trunkFlexion
    /// Trunk bend to the right (+) or left (−).
    case trunkLateralBend
    /// Trunk turn relative to the pelvis (+ = shoulders turn to the left).
    case trunkTwist
    /// Head bend forward (+, chin down).
    case neckFlexion
    /// Head turn (+ = to the left).
    case neckTwist
    /// Right shoulder plane of elevation.
    case rightShoulderPlane
    /// Right shoulder elevation.
    case rightShoulderElevation
    /// Right shoulder axial rotation.
    case rightShoulderRotation
    /// Right elbow flexion (0 = straight).
    case rightElbowFlexion
    /// Left shoulder plane of elevation.
    case leftShoulderPlane
    /// Left shoulder elevation.
    case leftShoulderElevation
    /// Left shoulder axial rotation.
    case leftShoulderRotation
    /// Left elbow flexion.
    case leftElbowFlexion
    /// Right hip flexion (thigh forward +, backward −).
    case rightHipFlexion
    /// Right hip abduction (thigh out to the side).
    case rightHipAbduction
    /// Right knee flexion (0 = straight).
    case rightKneeFlexion
    /// Left hip flexion.
    case leftHipFlexion
    /// Left hip abduction.
    case leftHipAbduction
    /// Left knee flexion.
    case leftKneeFlexion
    /// Right hip axial rotation (+ = external: toes out). It lets the pelvis turn over planted
    /// feet, as in a throw's hip rotation.
    case rightHipRotation
    /// Left hip axial rotation (+ = external).
    case leftHipRotation

    /// Whether the value is a translation in metres rather than an angle.
    public var isTranslation: Bool { self == .rootX || self == .rootZ || self == .rootLift }

    /// Whether mirroring the body left ↔ right negates the value (sideways position, turns, side bends).
    public var isNegatedByMirroring: Bool {
        switch self {
        case .rootX, .heading, .trunkLateralBend, .trunkTwist, .neckTwist: return true
        default: return false
        }
    }

    /// The same degree of freedom on the other side of the body (itself when unsided).
    public var mirrorPartner: BodyAngle {
        let arm = BodyAngle.rightShoulderPlane.rawValue, leg = BodyAngle.rightHipFlexion.rawValue
        switch rawValue {
        case arm..<(arm + 4): return BodyAngle(rawValue: rawValue + 4)!
        case (arm + 4)..<(arm + 8): return BodyAngle(rawValue: rawValue - 4)!
        case leg..<(leg + 3): return BodyAngle(rawValue: rawValue + 3)!
        case (leg + 3)..<(leg + 6): return BodyAngle(rawValue: rawValue - 3)!
        case BodyAngle.rightHipRotation.rawValue: return .leftHipRotation
        case BodyAngle.leftHipRotation.rawValue: return .rightHipRotation
        default: return self
        }
    }
}
