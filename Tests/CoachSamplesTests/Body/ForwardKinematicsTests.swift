import CoachSamples
import XCTest

/// Forward kinematics against hand-worked positions, bone lengths, mirroring.
final class ForwardKinematicsTests: XCTestCase {
    private let body = BodyProportions(height: 1.8)
    private var zero: BodyPose { BodyPose(values: [Float](repeating: 0, count: BodyAngle.allCases.count)) }

    private func assertClose(_ a: SIMD3<Float>, _ b: SIMD3<Float>, accuracy: Float = 1e-4, _ message: String = "",
                             file: StaticString = #filePath, line: UInt = #line) {
        for axis in 0..<3 { XCTAssertEqual(a[axis], b[axis], accuracy: accuracy, "\(message) axis \(axis): \(a) vs \(b)", file: file, line: line) }
    }

    /// All angles zero: straight limbs hanging, standing on the floor. By hand, H = 1.8 m:
    /// ankle 0.039 H = 0.0702, hip 0.0702 + (0.246 + 0.245) H = 0.954, neck 0.954 + 0.288 H = 1.4724,
    /// shoulders 1.4724 − 0.012 H = 1.4508 at x = ∓0.1295 H = ∓0.2331, wrists 1.4508 − 0.332 H = 0.8532.
    func testUprightBodyLandsAtHandWorkedPositions() {
        let joints = ForwardKinematics(proportions: body).body(zero)
        assertClose(joints[.rightAnkle], SIMD3(-0.191 * 0.28 * 1.8, 0.0702, 0))
        assertClose(joints[.leftHip], SIMD3(0.191 * 0.28 * 1.8, 0.954, 0))
        assertClose(joints[.neck], SIMD3(0, 1.4724, 0))
        assertClose(joints[.rightShoulder], SIMD3(-0.2331, 1.4508, 0))
        assertClose(joints[.leftWrist], SIMD3(0.2331, 0.8532, 0))
        XCTAssertGreaterThan(joints[.nose].z, 0.05, "the nose is in front of the head")
        XCTAssertGreaterThan(joints[.leftEar].x, joints[.rightEar].x, "left is +x")
    }

    /// The right arm raised to the side (elevation 90° in the frontal plane): elbow at shoulder
    /// height 0.186 H = 0.3348 m further right; a 90° elbow with no rotation points the forearm
    /// (0.146 H = 0.2628 m) forward, with 90° external rotation upward.
    func testRaisedArmAndElbowDirections() {
        var pose = zero
        pose.set([.rightShoulderElevation: 90, .rightElbowFlexion: 90])
        var joints = ForwardKinematics(proportions: body).body(pose)
        assertClose(joints[.rightElbow], SIMD3(-0.5679, 1.4508, 0))
        assertClose(joints[.rightWrist], SIMD3(-0.5679, 1.4508, 0.2628))
        pose.set([.rightShoulderRotation: -90])
        joints = ForwardKinematics(proportions: body).body(pose)
        assertClose(joints[.rightWrist], SIMD3(-0.5679, 1.4508 + 0.2628, 0))
        // Forward raise (plane 90°) to horizontal: the elbow straight ahead of the shoulder.
        pose = zero
        pose.set([.leftShoulderPlane: 90, .leftShoulderElevation: 90])
        joints = ForwardKinematics(proportions: body).body(pose)
        assertClose(joints[.leftElbow], SIMD3(0.2331, 1.4508, 0.3348))
        // Hip flexed 90° with the knee bent 90°: thigh forward, shank down.
        pose = zero
        pose.set([.rightHipFlexion: 90, .rightKneeFlexion: 90])
        joints = ForwardKinematics(proportions: body).body(pose)
        XCTAssertEqual(joints[.rightKnee].z - joints[.rightHip].z, 0.245 * 1.8, accuracy: 1e-4)
        XCTAssertEqual(joints[.rightKnee].y, joints[.rightHip].y, accuracy: 1e-4)
        XCTAssertEqual(joints[.rightAnkle].y, joints[.rightKnee].y - 0.246 * 1.8, accuracy: 1e-4)
    }

    /// Turning the pelvis 90° to the left makes the chest face +x.
    func testHeadingTurnsTheBody() {
        var pose = zero
        pose.set([.heading: 90])
        let joints = ForwardKinematics(proportions: body).body(pose)
        XCTAssertEqual(joints.chestForward.x, 1, accuracy: 1e-5)
        XCTAssertGreaterThan(joints[.nose].x, joints[.neck].x)
    }

    /// A mirrored pose is the mirror image of the pose: x negated, left and right swapped.
    func testMirroredPoseIsTheMirrorImage() {
        var pose = BodyPose.standing
        pose.set([.rootX: 0.3, .rootZ: 0.5, .heading: 25, .trunkTwist: -30, .trunkLateralBend: 10, .neckTwist: 20,
                  .rightShoulderPlane: -20, .rightShoulderElevation: 100, .rightShoulderRotation: -110, .rightElbowFlexion: 95,
                  .leftHipFlexion: 40, .leftKneeFlexion: 30, .rightHipAbduction: 12])
        let kinematics = ForwardKinematics(proportions: body)
        let original = kinematics.body(pose), mirrored = kinematics.body(pose.mirrored())
        for joint in Body18.allCases {
            let a = original[joint], b = mirrored[joint.mirrorPartner]
            assertClose(SIMD3(-a.x, a.y, a.z), b, accuracy: 1e-4, "\(joint)")
        }
        XCTAssertEqual(pose.mirrored().mirrored(), pose)
    }

    /// Bones keep their length whatever the angles.
    func testBoneLengthsAreConstant() {
        var generator = SeededGeneratorForTests(seed: 3)
        let kinematics = ForwardKinematics(proportions: body)
        let bones: [(Body18, Body18, Float)] = [(.rightShoulder, .rightElbow, 0.186), (.leftElbow, .leftWrist, 0.146),
                                                (.rightHip, .rightKnee, 0.245), (.leftKnee, .leftAnkle, 0.246)]
        for _ in 0..<200 {
            var pose = zero
            for index in pose.values.indices { pose.values[index] = generator.uniform(-2, 2) }
            let joints = kinematics.body(JointLimits.human.clamp(pose))
            for (a, b, ratio) in bones {
                let d = joints[a] - joints[b]
                XCTAssertEqual((d * d).sum().squareRoot(), ratio * 1.8, accuracy: 1e-4)
            }
        }
    }
}
