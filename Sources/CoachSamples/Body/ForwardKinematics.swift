import Foundation
/// Turns a `BodyPose` into joint positions: the pelvis at the root, the trunk, neck and head
/// on it, arms on the trunk and legs on the pelvis, each bone a fixed length of
/// `BodyProportions`. The body then stands on the floor (y = 0): it is lifted or lowered so
/// that its lower ankle is at ankle height (plus `rootLift` in a jump).
///
/// Frames: x to the body's left, y up, z forward. A limb hangs along −y in its parent's frame;
/// the shoulder is `Ry(plane) · Rz(∓elevation) · Ry(±(rotation − plane))` (ISB angles, Wu et al.
/// 2005, with the axial rotation measured from the plane of elevation so that a hanging arm with
/// a bent elbow points its forearm forward whatever the plane), the hip `Ry(∓rotation) ·
/// Rx(−flexion) · Rz(∓abduction)`; elbows bend the forearm towards the limb frame's +z, knees bend the shank
/// towards −z. Upper signs are the right side, lower the left (mirror images of each other).
public struct ForwardKinematics: Sendable {
    /// The body's bone lengths.
    public var proportions: BodyProportions

    /// Kinematics of a body with `proportions`.
    public init(proportions: BodyProportions) {
        self.proportions = proportions
    }

    /// The joints of `pose`, standing on the floor.
    public func body(_ pose: BodyPose) -> Body3D {
        let p = proportions
        let pelvis = Rotation3.aboutY(pose[.heading])
        let root = SIMD3<Float>(pose[.rootX], 0, pose[.rootZ])
        var joints = [SIMD3<Float>](repeating: .zero, count: Body18.allCases.count)

        // Legs hang from the pelvis.
        for (side, base, rotation) in [(Float(-1), BodyAngle.rightHipFlexion, BodyAngle.rightHipRotation),
                                       (Float(1), .leftHipFlexion, .leftHipRotation)] {
            let flexion = pose.values[base.rawValue], abduction = pose.values[base.rawValue + 1]
            let knee = pose.values[base.rawValue + 2]
            let thigh = pelvis * Rotation3.aboutY(side * pose[rotation]) * Rotation3.aboutX(-flexion)
                * Rotation3.aboutZ(side * abduction)
            let hip = root + pelvis.apply(SIMD3(side * p.hipHalfWidth, 0, 0))
            let kneePosition = hip + thigh.apply(SIMD3(0, -p.thighLength, 0))
            let ankle = kneePosition + thigh.apply(SIMD3(0, -cosf(knee), -sinf(knee)) * p.shankLength)
            let indices: (Body18, Body18, Body18) = side < 0 ? (.rightHip, .rightKnee, .rightAnkle) : (.leftHip, .leftKnee, .leftAnkle)
            joints[indices.0.rawValue] = hip
            joints[indices.1.rawValue] = kneePosition
            joints[indices.2.rawValue] = ankle
        }

        // Trunk, shoulders and arms.
        let trunk = pelvis * Rotation3.aboutY(pose[.trunkTwist]) * Rotation3.aboutX(pose[.trunkFlexion])
            * Rotation3.aboutZ(pose[.trunkLateralBend])
        let neckBase = root + trunk.apply(SIMD3(0, p.trunkLength, 0))
        joints[Body18.neck.rawValue] = neckBase
        for (side, base) in [(Float(-1), BodyAngle.rightShoulderPlane), (Float(1), .leftShoulderPlane)] {
            let plane = pose.values[base.rawValue], elevation = pose.values[base.rawValue + 1]
            let rotation = pose.values[base.rawValue + 2], elbow = pose.values[base.rawValue + 3]
            let arm = trunk * Rotation3.aboutY(-side * plane) * Rotation3.aboutZ(side * elevation)
                * Rotation3.aboutY(-side * (rotation - plane))
            let shoulder = neckBase + trunk.apply(SIMD3(side * p.shoulderHalfWidth, -0.012 * p.height, 0))
            let elbowPosition = shoulder + arm.apply(SIMD3(0, -p.upperArmLength, 0))
            let wrist = elbowPosition + arm.apply(SIMD3(0, -cosf(elbow), sinf(elbow)) * p.forearmLength)
            let indices: (Body18, Body18, Body18) = side < 0 ? (.rightShoulder, .rightElbow, .rightWrist)
                : (.leftShoulder, .leftElbow, .leftWrist)
            joints[indices.0.rawValue] = shoulder
            joints[indices.1.rawValue] = elbowPosition
            joints[indices.2.rawValue] = wrist
        }

        // Neck and face.
        let head = trunk * Rotation3.aboutY(pose[.neckTwist]) * Rotation3.aboutX(pose[.neckFlexion])
        let headBase = neckBase + trunk.apply(SIMD3(0, p.neckLength, 0))
        let face = HeadModel.facePoints(base: headBase, up: head.y, forward: head.z, height: p.height)
        joints[Body18.nose.rawValue] = face.nose
        joints[Body18.rightEye.rawValue] = face.rightEye
        joints[Body18.leftEye.rawValue] = face.leftEye
        joints[Body18.rightEar.rawValue] = face.rightEar
        joints[Body18.leftEar.rawValue] = face.leftEar

        // Stand on the floor.
        let lowest = min(joints[Body18.rightAnkle.rawValue].y, joints[Body18.leftAnkle.rawValue].y)
        let lift = p.ankleHeight + max(pose[.rootLift], 0) - lowest
        for index in joints.indices { joints[index].y += lift }
        return Body3D(joints: joints, headForward: head.z, chestForward: trunk.z, height: p.height)
    }
}
