import Foundation
import CoachRandom

/// Scripts the background activities as key poses (right-handed; the dataset mirrors some).
/// Each starts from and returns to the performer's resting pose, so activities chain smoothly.
public enum BackgroundMotions {
    /// A random instance of `activity` lasting roughly `duration` seconds by a person `height`
    /// metres tall, with durations scaled by `tempo`.
    public static func perform(_ activity: BackgroundActivity, from rest: BodyPose, height: Float, tempo: Float,
                               duration: Double, using g: inout SeededGenerator) -> MotionScript {
        let T = Double(tempo * g.nextUniform(0.85, 1.2))
        var s = MotionScript(from: rest)
        func repeats(_ period: Double) -> Int { max(1, Int((duration / (period * T)).rounded())) }
        switch activity {
        case .standing:
            var left = duration
            while left > 0.3 {
                let step = Double(g.nextUniform(0.6, 1.6))
                let shift = g.nextUniform(-0.04, 0.04) * height / 1.75
                let armsFront = g.nextBool(probability: 0.3)
                s.key(after: step, pose: rest.setting([
                    .rootX: shift, .trunkLateralBend: shift * 60, .neckTwist: g.nextUniform(-50, 50),
                    .neckFlexion: g.nextUniform(-10, 25), .heading: g.nextUniform(-25, 25),
                    .rightHipAbduction: 4 - shift * 80, .leftHipAbduction: 4 + shift * 80,
                    .rightKneeFlexion: g.nextUniform(2, 12), .leftKneeFlexion: g.nextUniform(2, 12),
                    .rightShoulderPlane: armsFront ? 80 : 20, .rightShoulderElevation: armsFront ? 25 : g.nextUniform(5, 15),
                    .rightElbowFlexion: armsFront ? g.nextUniform(60, 100) : g.nextUniform(5, 30),
                    .leftShoulderPlane: armsFront ? 80 : 20, .leftShoulderElevation: armsFront ? 25 : g.nextUniform(5, 15),
                    .leftElbowFlexion: armsFront ? g.nextUniform(60, 100) : g.nextUniform(5, 30),
                ]))
                left -= step
            }
        case .walking:
            let stride = height * g.nextUniform(0.3, 0.42), period = Double(g.nextUniform(0.45, 0.6)) * T
            let turnAt = g.nextBool(probability: 0.6) ? g.nextInt(in: 1...3) : -1
            var heading: Float = g.nextUniform(-30, 30), position = SIMD2<Float>(0, 0)
            let steps = max(2, Int(duration / period))
            for step in 0..<steps {
                if step == turnAt { heading += g.nextBool() ? 180 : -180 }  // walk up, then back
                let h = radians(heading)
                position += SIMD2(sinf(h), cosf(h)) * stride / 2
                let right = step % 2 == 0
                let swing: Float = g.nextUniform(20, 30)
                s.key(after: period, pose: rest.setting([
                    .rootX: position.x, .rootZ: position.y, .heading: heading,
                    .rightHipFlexion: right ? swing : -swing * 0.6, .leftHipFlexion: right ? -swing * 0.6 : swing,
                    .rightKneeFlexion: right ? 10 : 35, .leftKneeFlexion: right ? 35 : 10,
                    .rightShoulderPlane: 90, .leftShoulderPlane: 90,
                    .rightShoulderElevation: right ? -swing * 0.6 : swing * 0.7, .leftShoulderElevation: right ? swing * 0.7 : -swing * 0.6,
                    .rightElbowFlexion: g.nextUniform(10, 35), .leftElbowFlexion: g.nextUniform(10, 35),
                    .neckTwist: g.nextUniform(-20, 20),
                ]))
            }
            s.key(after: period, pose: rest.setting([.rootX: position.x, .rootZ: position.y, .heading: heading]), tangent: .still)
        case .pickingUp:
            let squat = g.nextBool(probability: 0.4)
            s.key(after: 0.3 * T, [.neckFlexion: 30])
            s.key(after: Double(g.nextUniform(0.6, 1.0)) * T, [
                .trunkFlexion: squat ? g.nextUniform(25, 45) : g.nextUniform(60, 90), .neckFlexion: 20,
                .rightHipFlexion: squat ? g.nextUniform(90, 115) : g.nextUniform(15, 35),
                .leftHipFlexion: squat ? g.nextUniform(80, 110) : g.nextUniform(10, 30),
                .rightKneeFlexion: squat ? g.nextUniform(100, 130) : g.nextUniform(15, 40),
                .leftKneeFlexion: squat ? g.nextUniform(100, 130) : g.nextUniform(15, 40),
                .rightShoulderPlane: 85, .rightShoulderElevation: g.nextUniform(40, 75), .rightElbowFlexion: 10,
                .leftShoulderPlane: 60, .leftShoulderElevation: g.nextUniform(10, 50), .leftElbowFlexion: 30,
            ], tangent: .still)
            s.hold(Double(g.nextUniform(0.2, 0.6)) * T)
            s.key(after: Double(g.nextUniform(0.6, 1.0)) * T, pose: rest.setting([
                .rightShoulderPlane: 80, .rightShoulderElevation: 20, .rightElbowFlexion: 80]), tangent: .still)
        case .waving:
            let plane = g.nextUniform(-10, 50), elevation = g.nextUniform(110, 165)
            s.key(after: 0.4 * T, [.rightShoulderPlane: plane, .rightShoulderElevation: elevation, .rightElbowFlexion: 40,
                                   .rightShoulderRotation: -40])
            for _ in 0..<repeats(0.4) {
                s.key(after: 0.2 * T, [.rightElbowFlexion: g.nextUniform(10, 30), .rightShoulderRotation: -10])
                s.key(after: 0.2 * T, [.rightElbowFlexion: g.nextUniform(45, 75), .rightShoulderRotation: -60])
            }
            s.key(after: 0.5 * T, pose: rest, tangent: .still)
        case .clapping:
            let elevation = g.nextUniform(30, 80)
            s.key(after: 0.3 * T, [.rightShoulderPlane: 75, .leftShoulderPlane: 75, .rightShoulderElevation: elevation,
                                   .leftShoulderElevation: elevation, .rightElbowFlexion: 90, .leftElbowFlexion: 90])
            for _ in 0..<repeats(0.35) {
                s.key(after: 0.17 * T, [.rightShoulderPlane: 95, .leftShoulderPlane: 95, .rightElbowFlexion: 100, .leftElbowFlexion: 100])
                s.key(after: 0.17 * T, [.rightShoulderPlane: 65, .leftShoulderPlane: 65, .rightElbowFlexion: 80, .leftElbowFlexion: 80])
            }
            s.key(after: 0.4 * T, pose: rest, tangent: .still)
        case .stretching:
            switch g.nextInt(below: 5) {
            case 0:  // arms overhead, maybe a side bend
                s.key(after: 0.8 * T, [.rightShoulderPlane: 30, .leftShoulderPlane: 30, .rightShoulderElevation: 170,
                                       .leftShoulderElevation: 170, .rightElbowFlexion: 10, .leftElbowFlexion: 10], tangent: .still)
                s.key(after: 1.0 * T, [.trunkLateralBend: g.nextBool() ? 25 : -25], tangent: .still)
                s.key(after: 1.0 * T, [.trunkLateralBend: 0], tangent: .still)
            case 1:  // an arm across the chest
                s.key(after: 0.7 * T, [.rightShoulderPlane: 135, .rightShoulderElevation: 90, .rightElbowFlexion: 10,
                                       .leftShoulderPlane: 90, .leftShoulderElevation: 80, .leftElbowFlexion: 110], tangent: .still)
                s.hold(Double(g.nextUniform(0.8, 1.5)) * T)
            case 2:  // quadriceps stretch
                s.key(after: 0.7 * T, [.rightHipFlexion: -10, .rightKneeFlexion: 140, .rightShoulderPlane: -30,
                                       .rightShoulderElevation: 40, .rightElbowFlexion: 60, .leftShoulderPlane: 10,
                                       .leftShoulderElevation: 45], tangent: .still)
                s.hold(Double(g.nextUniform(0.8, 1.5)) * T)
            case 3:  // toe touch
                s.key(after: 1.0 * T, [.trunkFlexion: 95, .neckFlexion: 20, .rightShoulderPlane: 90, .leftShoulderPlane: 90,
                                       .rightShoulderElevation: 80, .leftShoulderElevation: 80, .rightKneeFlexion: 5,
                                       .leftKneeFlexion: 5, .rightHipFlexion: 30, .leftHipFlexion: 30], tangent: .still)
                s.hold(Double(g.nextUniform(0.5, 1.2)) * T)
            default:  // trunk twists with arms out
                s.key(after: 0.5 * T, [.rightShoulderPlane: 0, .leftShoulderPlane: 0, .rightShoulderElevation: 85,
                                       .leftShoulderElevation: 85, .rightElbowFlexion: 20, .leftElbowFlexion: 20])
                for _ in 0..<repeats(1.2) {
                    s.key(after: 0.6 * T, [.trunkTwist: 45, .heading: 15, .rightHipRotation: 15, .leftHipRotation: -15], tangent: .still)
                    s.key(after: 0.6 * T, [.trunkTwist: -45, .heading: -15, .rightHipRotation: -15, .leftHipRotation: 15], tangent: .still)
                }
            }
            s.key(after: 0.8 * T, pose: rest, tangent: .still)
        case .armSwings:
            // Arm circles with one or both arms; pendulum swings always with both arms, in
            // opposition or together (one arm swinging alone would be a practice throw).
            let circles = g.nextBool(), both = !circles || g.nextBool(probability: 0.6), together = g.nextBool()
            let amplitude = g.nextUniform(30, 70)
            for index in 0..<repeats(circles ? 0.8 : 0.9) {
                if circles {  // arm circles: forward, up, back, down
                    let plane = g.nextUniform(40, 90)
                    for elevation in [Float(90), 170, -40, 10] {
                        var change: [BodyAngle: Float] = [.rightShoulderPlane: plane, .rightShoulderElevation: elevation,
                                                          .rightElbowFlexion: 10]
                        if both { change[.leftShoulderPlane] = plane; change[.leftShoulderElevation] = elevation; change[.leftElbowFlexion] = 10 }
                        s.key(after: 0.2 * T, change)
                    }
                } else {  // loose pendulum swings of both arms
                    let sign: Float = index % 2 == 0 ? 1 : -1
                    s.key(after: 0.45 * T, [.rightShoulderPlane: 90, .leftShoulderPlane: 90,
                                            .rightShoulderElevation: sign * amplitude,
                                            .leftShoulderElevation: together ? sign * amplitude : -sign * amplitude,
                                            .rightElbowFlexion: 15, .leftElbowFlexion: 15,
                                            .rightKneeFlexion: 10 + 5 * sign, .leftKneeFlexion: 10 + 5 * sign], tangent: .still)
                }
            }
            s.key(after: 0.5 * T, pose: rest, tangent: .still)
        case .jumpingJacks:
            for _ in 0..<repeats(0.7) {
                s.key(after: 0.18 * T, [.rootLift: 0.06, .rightHipAbduction: 25, .leftHipAbduction: 25, .rightShoulderPlane: 0,
                                        .leftShoulderPlane: 0, .rightShoulderElevation: 90, .leftShoulderElevation: 90])
                s.key(after: 0.17 * T, [.rootLift: 0, .rightShoulderElevation: 170, .leftShoulderElevation: 170,
                                        .rightKneeFlexion: 15, .leftKneeFlexion: 15, .rightElbowFlexion: 10, .leftElbowFlexion: 10])
                s.key(after: 0.18 * T, [.rootLift: 0.06, .rightHipAbduction: 10, .leftHipAbduction: 10,
                                        .rightShoulderElevation: 90, .leftShoulderElevation: 90])
                s.key(after: 0.17 * T, [.rootLift: 0, .rightHipAbduction: 4, .leftHipAbduction: 4,
                                        .rightShoulderElevation: 10, .leftShoulderElevation: 10, .rightKneeFlexion: 12, .leftKneeFlexion: 12])
            }
            s.key(after: 0.3 * T, pose: rest, tangent: .still)
        case .squats:
            let armsForward = g.nextBool()
            for _ in 0..<repeats(1.8) {
                let depth = g.nextUniform(70, 115)
                s.key(after: 0.9 * T, [.rightHipFlexion: depth, .leftHipFlexion: depth, .rightKneeFlexion: depth * 1.1,
                                       .leftKneeFlexion: depth * 1.1, .trunkFlexion: depth * 0.35, .rightHipAbduction: 15,
                                       .leftHipAbduction: 15,
                                       .rightShoulderPlane: armsForward ? 90 : 60, .leftShoulderPlane: armsForward ? 90 : 60,
                                       .rightShoulderElevation: armsForward ? 90 : 30, .leftShoulderElevation: armsForward ? 90 : 30,
                                       .rightElbowFlexion: armsForward ? 10 : 110, .leftElbowFlexion: armsForward ? 10 : 110],
                      tangent: .still)
                s.key(after: 0.9 * T, pose: rest.setting([.rightHipAbduction: 15, .leftHipAbduction: 15]), tangent: .still)
            }
        case .golfSwing:
            let address: [BodyAngle: Float] = [.trunkFlexion: 35, .rightKneeFlexion: 20, .leftKneeFlexion: 20, .rightHipAbduction: 10,
                                               .leftHipAbduction: 10, .rightShoulderPlane: 100, .leftShoulderPlane: 110,
                                               .rightShoulderElevation: 40, .leftShoulderElevation: 40, .rightElbowFlexion: 15,
                                               .leftElbowFlexion: 5, .neckFlexion: 30, .trunkTwist: 0]
            s.key(after: 0.8 * T, address, tangent: .still)
            s.hold(Double(g.nextUniform(0.2, 0.8)))
            let power = g.nextUniform(0.4, 1)
            // Backswing: shoulders turn right, hands rise over the right shoulder (lead arm across the chest).
            s.key(after: Double(0.7 + 0.3 * power) * T, [.trunkTwist: -50 * power, .heading: -15 * power, .rightHipRotation: -15 * power, .leftHipRotation: 15 * power,
                                                           .rightShoulderPlane: 20, .rightShoulderElevation: 60 + 50 * power,
                                                           .rightElbowFlexion: 90, .leftShoulderPlane: 130,
                                                           .leftShoulderElevation: 70 + 40 * power, .leftElbowFlexion: 10,
                                                           .neckTwist: 30 * power], tangent: .still)
            // Downswing through impact to a high finish.
            s.key(after: 0.25 * T, pose: s.pose.setting(address).setting([.heading: 10, .rightHipRotation: 10, .leftHipRotation: -10]), tangent: .peak(factor: 2))
            s.key(after: 0.35 * T, [.trunkTwist: 50 * power, .heading: 35 * power, .rightHipRotation: 35 * power, .leftHipRotation: -35 * power, .trunkFlexion: 10,
                                    .rightShoulderPlane: 130, .rightShoulderElevation: 60 + 50 * power, .rightElbowFlexion: 20,
                                    .leftShoulderPlane: 20, .leftShoulderElevation: 60 + 50 * power, .leftElbowFlexion: 90,
                                    .neckTwist: -20, .neckFlexion: 0, .rightKneeFlexion: 30], tangent: .still)
            s.hold(Double(g.nextUniform(0.3, 0.8)) * T)
            s.key(after: 0.8 * T, pose: rest, tangent: .still)
        case .catching:
            for _ in 0..<max(1, Int(duration / (1.6 * T))) {
                let two = g.nextBool(probability: 0.5), elevation = g.nextUniform(50, 150), plane = g.nextUniform(50, 100)
                var reach: [BodyAngle: Float] = [.rightShoulderPlane: plane, .rightShoulderElevation: elevation, .rightElbowFlexion: 25,
                                                 .trunkLateralBend: g.nextUniform(-10, 10), .neckFlexion: -elevation / 6]
                if two { reach[.leftShoulderPlane] = plane + 20; reach[.leftShoulderElevation] = elevation; reach[.leftElbowFlexion] = 25 }
                if g.nextBool(probability: 0.4) { reach[.rootX] = g.nextUniform(-0.3, 0.3); reach[.leftHipAbduction] = 15 }
                s.key(after: Double(g.nextUniform(0.4, 0.7)) * T, reach)
                s.key(after: 0.2 * T, [.rightShoulderElevation: elevation * 0.6, .rightElbowFlexion: 80,
                                       .leftShoulderElevation: two ? elevation * 0.6 : 10], tangent: .still)
                s.key(after: Double(g.nextUniform(0.5, 0.9)) * T, pose: rest.setting([.rightShoulderPlane: 80, .rightShoulderElevation: 20,
                                                                                     .rightElbowFlexion: 80]), tangent: .still)
            }
        case .kicking:
            let side = g.nextBool(probability: 0.3)
            s.key(after: 0.4 * T, [.rightHipFlexion: side ? 10 : -20, .rightKneeFlexion: 60, .leftKneeFlexion: 15,
                                   .leftShoulderElevation: 30, .rightShoulderElevation: 30, .leftShoulderPlane: 40], tangent: .still)
            s.key(after: 0.2 * T, [.rightHipFlexion: side ? 20 : g.nextUniform(60, 90), .rightHipAbduction: side ? g.nextUniform(35, 50) : 5,
                                   .rightKneeFlexion: 10, .trunkFlexion: side ? 0 : -10, .trunkLateralBend: side ? -20 : 0],
                  tangent: .peak(factor: 2))
            s.key(after: 0.3 * T, [.rightHipFlexion: 30, .rightHipAbduction: 5, .rightKneeFlexion: 70, .trunkLateralBend: 0], tangent: .still)
            s.key(after: 0.4 * T, pose: rest, tangent: .still)
        case .sittingDown:
            s.key(after: 1.0 * T, [.rightHipFlexion: 90, .leftHipFlexion: 90, .rightKneeFlexion: 90, .leftKneeFlexion: 90,
                                   .trunkFlexion: 15, .rightHipAbduction: 10, .leftHipAbduction: 10,
                                   .rightShoulderPlane: 80, .leftShoulderPlane: 80, .rightShoulderElevation: 20,
                                   .leftShoulderElevation: 20, .rightElbowFlexion: 80, .leftElbowFlexion: 80], tangent: .still)
            s.hold(Double(g.nextUniform(0.5, 2.0)) * T)
            s.key(after: 0.5 * T, [.trunkFlexion: 40], tangent: .still)
            s.key(after: 0.8 * T, pose: rest, tangent: .still)
        case .gesturing:
            if g.nextBool(probability: 0.3) {  // a phone call: hand at the ear
                s.key(after: 0.6 * T, [.rightShoulderPlane: 60, .rightShoulderElevation: 35, .rightElbowFlexion: 140,
                                       .rightShoulderRotation: -30, .neckFlexion: 10], tangent: .still)
                s.hold(Double(g.nextUniform(1, 2.5)) * T)
            } else {  // drawing circles, crosses or pointing
                for _ in 0..<repeats(0.9) {
                    s.key(after: 0.3 * T, [.rightShoulderPlane: g.nextUniform(40, 110), .rightShoulderElevation: g.nextUniform(50, 120),
                                           .rightElbowFlexion: g.nextUniform(10, 60), .rightShoulderRotation: g.nextUniform(-40, 20)])
                    s.key(after: 0.3 * T, [.rightShoulderPlane: g.nextUniform(40, 110), .rightShoulderElevation: g.nextUniform(50, 120),
                                           .rightElbowFlexion: g.nextUniform(10, 60)])
                    s.key(after: 0.3 * T, [.rightShoulderElevation: g.nextUniform(40, 90)])
                }
            }
            s.key(after: 0.6 * T, pose: rest, tangent: .still)
        case .hammering:
            let plane = g.nextUniform(60, 100)
            s.key(after: 0.5 * T, [.rightShoulderPlane: plane, .rightShoulderElevation: 60, .rightElbowFlexion: 100,
                                   .leftShoulderPlane: 80, .leftShoulderElevation: 40, .leftElbowFlexion: 80, .trunkFlexion: 15])
            for _ in 0..<repeats(0.5) {
                s.key(after: 0.25 * T, [.rightShoulderElevation: g.nextUniform(80, 120), .rightElbowFlexion: 120], tangent: .still)
                s.key(after: 0.2 * T, [.rightShoulderElevation: g.nextUniform(40, 60), .rightElbowFlexion: g.nextUniform(40, 70)],
                      tangent: .still)
            }
            s.key(after: 0.5 * T, pose: rest, tangent: .still)
        }
        return s
    }
}
