import CoachRandom
import CoachSamples
import XCTest

/// Each throw's defining facts, asserted on generated throws through forward kinematics.
final class ThrowMotionsTests: XCTestCase {
    private struct Sampled {
        var performance: ThrowPerformance
        var bodies: [Body3D]
        var times: [Double]
        var height: Float
        func body(at time: Double) -> Body3D { bodies[times.firstIndex { $0 >= time - 1e-9 } ?? bodies.count - 1] }
    }

    private func throwsOf(_ kind: ThrowKind, count: Int, seed: UInt64) -> [Sampled] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { index in
            let performer = Performer.random(identifier: index, leftHanded: false, using: &generator)
            let performance = ThrowMotions.perform(kind, from: performer.restingPose, height: performer.proportions.height,
                                                   tempo: performer.tempo, using: &generator)
            let track = MotionTrack(keyframes: performance.script.keyframes)
            let kinematics = ForwardKinematics(proportions: performer.proportions)
            let times = stride(from: 0.0, through: track.endTime, by: 1.0 / 120).map { $0 }
            return Sampled(performance: performance, bodies: times.map { kinematics.body(track.pose(at: $0)) }, times: times,
                           height: performer.proportions.height)
        }
    }

    /// Time of the right wrist's speed peak between the start of the throw and the end of the follow-through.
    private func wristPeak(_ sample: Sampled) -> Double {
        var best = 0.0, bestSpeed: Float = -1
        for index in 1..<sample.times.count where sample.times[index] >= sample.performance.motionStart
            && sample.times[index] <= sample.performance.followThroughEnd {
            let d = sample.bodies[index][.rightWrist] - sample.bodies[index - 1][.rightWrist]
            let speed = (d * d).sum()
            if speed > bestSpeed { bestSpeed = speed; best = sample.times[index] }
        }
        return best
    }

    func testOverhandReleasesAboveAndInFrontOfTheShoulderAfterAStrideWithTheOppositeFoot() {
        for sample in throwsOf(.overhand, count: 40, seed: 1) {
            let release = sample.body(at: sample.performance.release)
            XCTAssertGreaterThan(release[.rightWrist].y, release[.rightShoulder].y, "release above the shoulder")
            XCTAssertGreaterThan(release[.rightWrist].z, release[.rightShoulder].z, "release in front of the shoulder")
            XCTAssertEqual(wristPeak(sample), sample.performance.release, accuracy: 0.05, "the hand is fastest at release")
            if sample.performance.stepsWithLeftFoot == true {
                let start = sample.bodies[0]
                XCTAssertGreaterThan(release[.leftAnkle].z - start[.leftAnkle].z, release[.rightAnkle].z - start[.rightAnkle].z,
                                     "the left (opposite) foot strides towards the target")
            }
            // Follow-through: the throwing hand comes across the body, towards the glove side.
            func lateral(_ body: Body3D) -> Float {
                let left = SIMD3<Float>(body.chestForward.z, 0, -body.chestForward.x)
                return ((body[.rightWrist] - body[.neck]) * left).sum() / sample.height
            }
            let after = sample.body(at: sample.performance.followThroughEnd)
            XCTAssertLessThan(lateral(release), 0, "released on the throwing side")
            XCTAssertGreaterThan(lateral(after), lateral(release) + 0.1, "followed through across the body")
        }
    }

    func testUnderhandReleasesInFrontOfTheBodyBetweenHipAndChest() {
        var low = 0
        for sample in throwsOf(.underhand, count: 40, seed: 2) {
            let release = sample.body(at: sample.performance.release)
            let hipHeight = (release[.rightHip].y + release[.leftHip].y) / 2
            let chest = release[.neck].y - 0.05 * sample.height
            XCTAssertLessThan(release[.rightWrist].y, release[.rightShoulder].y, "an underhand release is below the shoulder")
            XCTAssertGreaterThan(release[.rightWrist].z, (release[.rightHip].z + release[.leftHip].z) / 2, "in front of the body")
            if sample.performance.isLowRelease {
                low += 1
                XCTAssertLessThan(release[.rightWrist].y, hipHeight + 0.05 * sample.height, "a bowling-style release is low")
            } else {
                XCTAssertGreaterThan(release[.rightWrist].y, hipHeight - 0.03 * sample.height, "cornhole release at or above hip height")
                XCTAssertLessThan(release[.rightWrist].y, chest, "cornhole release below the chest")
            }
            XCTAssertEqual(wristPeak(sample), sample.performance.release, accuracy: 0.06, "the hand is fastest at release")
            let start = sample.bodies[0]
            XCTAssertGreaterThan(release[.leftAnkle].z - start[.leftAnkle].z, release[.rightAnkle].z - start[.rightAnkle].z,
                                 "the left (opposite) foot steps forward")
        }
        XCTAssertGreaterThan(low, 0)
        XCTAssertLessThan(low, 25)
    }

    func testUnderlegReleasesUnderARaisedThigh() {
        for sample in throwsOf(.underleg, count: 40, seed: 3) {
            let release = sample.body(at: sample.performance.release)
            let raisedKnee = max(release[.rightKnee].y, release[.leftKnee].y), otherKnee = min(release[.rightKnee].y, release[.leftKnee].y)
            XCTAssertGreaterThan(raisedKnee - otherKnee, 0.12 * sample.height, "one leg is lifted")
            XCTAssertLessThan(release[.rightWrist].y, (release[.rightHip].y + release[.leftHip].y) / 2, "released below the hip")
            XCTAssertLessThan(release[.rightWrist].y, raisedKnee, "under the thigh")
            XCTAssertEqual(wristPeak(sample), sample.performance.release, accuracy: 0.06, "the hand is fastest at release")
        }
    }

    /// Sampled poses stay within the joint limits.
    func testGeneratedMotionRespectsJointLimits() {
        var generator = SeededGenerator(seed: 9)
        for kind in ThrowKind.allCases {
            let performance = ThrowMotions.perform(kind, from: .standing, height: 1.75, tempo: 1, using: &generator)
            let track = MotionTrack(keyframes: performance.script.keyframes)
            for step in 0...200 {
                XCTAssertTrue(JointLimits.human.contains(track.pose(at: track.endTime * Double(step) / 200)))
            }
        }
        for activity in BackgroundActivity.allCases {
            let script = BackgroundMotions.perform(activity, from: .standing, height: 1.75, tempo: 1, duration: 3, using: &generator)
            let track = MotionTrack(keyframes: script.keyframes)
            XCTAssertGreaterThan(track.endTime, 0.5, "\(activity)")
            for step in 0...100 { XCTAssertTrue(JointLimits.human.contains(track.pose(at: track.endTime * Double(step) / 100))) }
        }
    }

    /// A track passes through its key poses.
    func testTrackPassesThroughKeyPoses() {
        var script = MotionScript(from: .standing)
        script.key(after: 0.5, [.rightElbowFlexion: 90])
        script.key(after: 0.5, [.rightElbowFlexion: 30], tangent: .peak(factor: 2))
        script.key(after: 0.5, [.rightElbowFlexion: 60], tangent: .still)
        let track = MotionTrack(keyframes: script.keyframes)
        XCTAssertEqual(track.pose(at: 0.5).degrees(.rightElbowFlexion), 90, accuracy: 1e-3)
        XCTAssertEqual(track.pose(at: 1.0).degrees(.rightElbowFlexion), 30, accuracy: 1e-3)
        XCTAssertEqual(track.pose(at: 2.0).degrees(.rightElbowFlexion), 60, accuracy: 1e-3)
    }
}
