import Foundation

/// Forward kinematics of an 18-joint stick figure: joint angles → 3-D joint positions.
///
/// World frame: x points toward the throwing target, y up, z to the thrower's right when
/// facing the target; the ground is y = 0. Joints come out in Create ML's body18 order.
struct StickFigure {
    let lengths: StickFigureLengths

    init(subject: SyntheticSubject) {
        lengths = StickFigureLengths(subject: subject)
    }

    /// The 18 joint positions (metres) for `pose`, in `SyntheticJointNames.body18` order.
    func joints(for pose: StickFigurePose) -> [SIMD3<Float>] {
        let l = lengths
        let headingRotation = SyntheticRotation.aboutY(pose[.heading])

        // Legs, in the heading frame relative to the pelvis centre (side +1 = right).
        func leg(side: Float, flexion: Float, abduction: Float, knee: Float)
            -> (hip: SIMD3<Float>, knee: SIMD3<Float>, ankle: SIMD3<Float>) {
            let hip = SIMD3<Float>(0, 0, side * l.hipHalfWidth)
            let ca = cos(abduction), sa = sin(abduction)
            let thighDirection = SIMD3<Float>(ca * sin(flexion), -ca * cos(flexion), side * sa)
            let shankAngle = flexion - knee
            let shankDirection = SIMD3<Float>(ca * sin(shankAngle), -ca * cos(shankAngle), side * sa)
            let kneePosition = hip + l.thigh * thighDirection
            return (hip, kneePosition, kneePosition + l.shank * shankDirection)
        }
        let right = leg(side: 1, flexion: pose[.rightHipFlexion], abduction: pose[.rightHipAbduction],
                        knee: pose[.rightKneeFlexion])
        let left = leg(side: -1, flexion: pose[.leftHipFlexion], abduction: pose[.leftHipAbduction],
                       knee: pose[.leftKneeFlexion])

        // Ground contact: the lower ankle rests at ankle height.
        let lowest = min(right.ankle.y, left.ankle.y)
        let pelvisHeight = l.ankleHeight - lowest
        // Foot lock: keep the supporting foot (a soft minimum over ankle heights) in place.
        let softness = 0.08 * l.height
        let rightWeight = exp(-(right.ankle.y - lowest) / softness)
        let leftWeight = exp(-(left.ankle.y - lowest) / softness)
        let supportForward = (rightWeight * right.ankle.x + leftWeight * left.ankle.x) / (rightWeight + leftWeight)
        let pelvisLocal = SIMD3<Float>(-pose[.footLock] * supportForward, 0, 0)
        let root = SIMD3<Float>(pose[.rootForward], pelvisHeight, pose[.rootSide])
        func world(_ local: SIMD3<Float>) -> SIMD3<Float> { root + headingRotation * (pelvisLocal + local) }

        // Trunk: lean about the hips, side bend, then twist about the spine.
        let trunkRotation = headingRotation
            * SyntheticRotation.aboutZ(-pose[.trunkLean])
            * SyntheticRotation.aboutX(pose[.trunkSideBend])
            * SyntheticRotation.aboutY(-pose[.trunkTwist])
        let pelvis = world(.zero)
        let neck = pelvis + trunkRotation * SIMD3(0, l.torso, 0)

        func arm(side: Float, flexion: Float, abduction: Float, rotation: Float, elbow: Float)
            -> (shoulder: SIMD3<Float>, elbow: SIMD3<Float>, wrist: SIMD3<Float>) {
            let shoulder = neck + trunkRotation * SIMD3(0, 0, side * l.shoulderHalfWidth)
            let ca = cos(abduction), sa = sin(abduction)
            let upper = SIMD3<Float>(ca * sin(flexion), -ca * cos(flexion), side * sa)
            let front = SyntheticVector.perpendicular(SIMD3(cos(flexion), sin(flexion), 0), to: upper,
                                                      fallback: SIMD3(1, 0, 0))
            let bend = SyntheticVector.rotated(front, about: upper, by: side * rotation)
            let lower = upper * cos(elbow) + bend * sin(elbow)
            let elbowPosition = shoulder + trunkRotation * (l.upperArm * upper)
            return (shoulder, elbowPosition, elbowPosition + trunkRotation * (l.forearm * lower))
        }
        let rightArm = arm(side: 1, flexion: pose[.rightShoulderFlexion], abduction: pose[.rightShoulderAbduction],
                           rotation: pose[.rightArmRotation], elbow: pose[.rightElbowFlexion])
        let leftArm = arm(side: -1, flexion: pose[.leftShoulderFlexion], abduction: pose[.leftShoulderAbduction],
                          rotation: pose[.leftArmRotation], elbow: pose[.leftElbowFlexion])

        // Head: attached at the neck, turned and nodded relative to the trunk.
        let headRotation = trunkRotation
            * SyntheticRotation.aboutY(-pose[.headYaw])
            * SyntheticRotation.aboutZ(-pose[.headPitch])
        let h = l.height
        func head(_ forward: Float, _ up: Float, _ side: Float) -> SIMD3<Float> {
            neck + headRotation * SIMD3(forward * h, up * h, side * h)
        }

        return [
            head(0.050, 0.082, 0),                 // nose
            neck,
            rightArm.shoulder, rightArm.elbow, rightArm.wrist,
            leftArm.shoulder, leftArm.elbow, leftArm.wrist,
            world(right.hip), world(right.knee), world(right.ankle),
            world(left.hip), world(left.knee), world(left.ankle),
            head(0.040, 0.100, 0.032),             // right eye
            head(0.040, 0.100, -0.032),            // left eye
            head(-0.006, 0.094, 0.072),            // right ear
            head(-0.006, 0.094, -0.072),           // left ear
        ]
    }
}
