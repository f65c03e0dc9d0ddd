import CoachRandom

/// Scripts the three throws as key poses for a right-handed thrower (left-handers mirror them).
///
/// Overhand, after the phases of the baseball pitch and the overarm throw (Fleisig et al. 1996,
/// Sports Med 21:421; Escamilla & Andrews 2009, Sports Med 39:569): an optional leg lift, a
/// stride with the glove-side (opposite) foot, pelvis rotation towards the target before trunk
/// rotation, the shoulder abducted about 90–100° throughout, maximal external rotation with the
/// elbow near 90° at the end of arm cocking, elbow extension to about 20–30° of flexion and
/// release above and in front of the shoulder with the trunk tilted forward and to the glove
/// side, then a follow-through of the arm across the body. Effort varies from a casual dart-like
/// toss to a full pitch.
///
/// Underhand, after the underhand throw's mature pattern (Roberton & Halverson 1984, Developing
/// Children — Their Changing Movement; Gallahue & Ozmun, Understanding Motor Development) and
/// the cornhole delivery: a pendulum backswing with a straight arm, a step with the opposite foot,
/// knees flexing and the trunk leaning forward, release between hip and chest height in front
/// of the body, the arm following through upwards. A share are bowling-style deliveries with a
/// lunge and a release near the floor (Razman et al. 2012, on ten-pin bowling).
///
/// Under the leg: a leg lifted high with the knee bent while the arm swings forward under the
/// thigh, released in front of the body below the hip.
public enum ThrowMotions {
    /// A random throw of `kind` by a person `height` metres tall starting from `rest`, with
    /// durations scaled by `tempo`.
    public static func perform(_ kind: ThrowKind, from rest: BodyPose, height: Float, tempo: Float,
                               using generator: inout SeededGenerator) -> ThrowPerformance {
        switch kind {
        case .overhand: return overhand(from: rest, height: height, tempo: tempo, using: &generator)
        case .underhand: return underhand(from: rest, height: height, tempo: tempo, using: &generator)
        case .underleg: return underleg(from: rest, height: height, tempo: tempo, using: &generator)
        }
    }

    static func overhand(from rest: BodyPose, height: Float, tempo: Float, using g: inout SeededGenerator) -> ThrowPerformance {
        let T = Double(tempo * g.nextUniform(0.85, 1.15))
        let effort = g.nextUniform()
        let closed = -(10 + 70 * effort) * g.nextUniform(0.5, 1)
        let stride = height * (0.1 + 0.45 * effort) * g.nextUniform(0.7, 1.1)
        var s = MotionScript(from: rest)
        // Set: bag (or ball) held at the chest or the waist, side turned towards the target.
        let high = g.nextBool()
        s.key(after: Double(g.nextUniform(0.25, 0.6)) * T,
              [.heading: closed, .neckTwist: -closed * 0.8, .rightShoulderPlane: 70, .rightShoulderElevation: high ? 35 : 20,
               .rightShoulderRotation: 0, .rightElbowFlexion: high ? 110 : 70, .leftShoulderPlane: 80,
               .leftShoulderElevation: high ? 35 : 15, .leftElbowFlexion: high ? 100 : 30], tangent: .still)
        if g.nextBool(probability: 0.15) {  // a pump-fake
            s.key(after: 0.3 * T, [.rightShoulderPlane: 10, .rightShoulderElevation: 85, .rightShoulderRotation: -70,
                                   .rightElbowFlexion: 95, .trunkTwist: -10], tangent: .still)
            s.key(after: 0.35 * T, [.rightShoulderPlane: 60, .rightShoulderElevation: 45, .rightShoulderRotation: -10,
                                    .rightElbowFlexion: 100, .trunkTwist: 0], tangent: .still)
            s.hold(Double(g.nextUniform(0.1, 0.4)) * T)
        }
        let motionStart = s.time
        var steps = stride > 0.12 * height
        if g.nextBool(probability: 0.15 + 0.6 * effort) {  // leg lift of a wind-up (most hard throwers)
            s.key(after: Double(g.nextUniform(0.35, 0.6)) * T,
                  [.leftHipFlexion: 55 + 40 * effort, .leftKneeFlexion: 60 + 35 * effort, .leftHipAbduction: 0,
                   .rightKneeFlexion: 15, .trunkFlexion: -5, .trunkTwist: -10 * effort,
                   .rightShoulderElevation: 35, .leftShoulderElevation: 35], tangent: .still)
            steps = true
        }
        // Stride to foot contact, arm cocked; the pelvis already turning open ahead of the trunk.
        let cockRotation = -(70 + 60 * effort) * g.nextUniform(0.85, 1.1)
        s.key(after: Double(g.nextUniform(0.25, 0.45)) * T,
              [.rootZ: stride * 0.35, .heading: closed * 0.35, .neckTwist: -closed * 0.35,
               .leftHipFlexion: steps ? 25 + 25 * effort : 5, .leftHipAbduction: steps ? 8 + 25 * effort : 5,
               .leftKneeFlexion: 25 + 15 * effort, .rightHipFlexion: -(8 + 18 * effort), .rightHipAbduction: 5 + 10 * effort,
               .rightKneeFlexion: 15 + 20 * effort, .trunkTwist: -(15 + 35 * effort), .trunkFlexion: -5 * effort,
               .trunkLateralBend: 5 * effort,
               .rightShoulderPlane: -(5 + 20 * effort) * g.nextUniform(0.6, 1.2), .rightShoulderElevation: g.nextUniform(85, 105),
               .rightShoulderRotation: cockRotation, .rightElbowFlexion: g.nextUniform(85, 110),
               .leftShoulderPlane: g.nextUniform(30, 60), .leftShoulderElevation: g.nextUniform(60, 90),
               .leftElbowFlexion: g.nextUniform(20, 60)], tangent: .still)
        // The pelvis turns over the planted feet: the hips rotate by as much as the pelvis turns.
        let contactHeading = closed * 0.35
        func planted(_ heading: Float) -> [BodyAngle: Float] {
            [.heading: heading, .rightHipRotation: heading - contactHeading, .leftHipRotation: contactHeading - heading]
        }
        // Acceleration to release: a tenth of a second for most throwers (Fleisig et al. 1996: 30–50 ms for pitchers).
        s.key(after: Double(0.05 + 0.08 * (1 - effort) * g.nextUniform(0.6, 1.3)) * T,
              planted(5 + 15 * effort).merging([.rootZ: stride * 0.45, .neckTwist: 0,
               .trunkTwist: 10 + 30 * effort, .trunkFlexion: 5 + 22 * effort, .trunkLateralBend: -(8 + 20 * effort),
               .leftKneeFlexion: 20 + 15 * effort, .rightHipFlexion: -(10 + 10 * effort), .rightKneeFlexion: 25 + 15 * effort,
               .rightShoulderPlane: g.nextUniform(20, 45), .rightShoulderElevation: g.nextUniform(110, 128),
               .rightShoulderRotation: cockRotation * 0.15, .rightElbowFlexion: g.nextUniform(15, 35),
               .leftShoulderPlane: 70, .leftShoulderElevation: 30 + 20 * (1 - effort), .leftElbowFlexion: 90]) { $1 },
              tangent: .peak(factor: 2.5))
        let release = s.time
        // Deceleration and follow-through across the body.
        s.key(after: Double(g.nextUniform(0.15, 0.25)) * T,
              planted(15 + 30 * effort).merging([.rootZ: stride * 0.55, .trunkTwist: 20 + 30 * effort, .trunkFlexion: 12 + 40 * effort,
               .trunkLateralBend: -(3 + 10 * effort),
               .rightShoulderPlane: 100 + 30 * effort, .rightShoulderElevation: 75 - 35 * effort, .rightShoulderRotation: 20 + 40 * effort,
               .rightElbowFlexion: g.nextUniform(15, 40), .rightHipFlexion: -10 + 50 * effort, .rightKneeFlexion: 30 + 40 * effort,
               .leftShoulderPlane: 40, .leftShoulderElevation: 30, .leftElbowFlexion: 80]) { $1 }, tangent: .still)
        let followThroughEnd = s.time
        s.key(after: Double(g.nextUniform(0.45, 0.8)) * T,
              pose: rest.setting([.rootZ: stride * 0.6, .heading: g.nextUniform(-10, 15), .rootX: s.pose[.rootX]]), tangent: .still)
        return ThrowPerformance(kind: .overhand, script: s, motionStart: motionStart, release: release,
                                followThroughEnd: followThroughEnd, stepsWithLeftFoot: steps ? true : nil, isLowRelease: false)
    }

    static func underhand(from rest: BodyPose, height: Float, tempo: Float, using g: inout SeededGenerator) -> ThrowPerformance {
        let T = Double(tempo * g.nextUniform(0.85, 1.2))
        let bowling = g.nextBool(probability: 0.25)
        let stride = height * (bowling ? g.nextUniform(0.3, 0.5) : g.nextUniform(0.12, 0.35))
        var s = MotionScript(from: rest)
        var z: Float = 0
        let lean = bowling ? g.nextUniform(25, 45) : g.nextUniform(8, 30)
        let knees = bowling ? g.nextUniform(25, 45) : g.nextUniform(10, 35)
        let motionStart: Double
        if bowling && g.nextBool(probability: 0.6) {
            // A bowler's approach: ball held at the chest, then three or four steps while the arm
            // pushes the ball away, lets it fall and swings it back, reaching the top of the
            // backswing on the last step.
            s.key(after: Double(g.nextUniform(0.3, 0.6)) * T,
                  [.rightShoulderPlane: 80, .rightShoulderElevation: 25, .rightElbowFlexion: 95, .leftShoulderPlane: 90,
                   .leftShoulderElevation: 25, .leftElbowFlexion: 95, .neckFlexion: 10], tangent: .still)
            s.hold(Double(g.nextUniform(0.2, 0.6)) * T)
            motionStart = s.time
            let steps = g.nextInt(in: 3...4)
            let arm: [(Float, Float)] = [(45, 20), (5, 10), (-35, 8), (-60, 5)].suffix(steps).map { $0 }
            for step in 0..<steps {
                let left = (steps - step) % 2 == 1
                z += height * 0.3
                let last = step == steps - 1
                s.key(after: 0.42 * T, [.rootZ: z, .leftHipFlexion: left ? 25 : -10, .rightHipFlexion: left ? -10 : 25,
                                       .leftKneeFlexion: left ? 20 : 35, .rightKneeFlexion: left ? 35 : 20,
                                       .trunkFlexion: lean * Float(step + 1) / Float(steps) * 0.8,
                                       .rightShoulderPlane: 90, .rightShoulderElevation: last ? -g.nextUniform(50, 75) : arm[step].0,
                                       .rightElbowFlexion: arm[step].1, .leftShoulderPlane: 20, .leftShoulderElevation: 20 + 10 * Float(step),
                                       .leftElbowFlexion: 20], tangent: last ? .still : .automatic)
            }
        } else {
            // Set: the bag at the waist, the other arm relaxed or pointing at the target.
            s.key(after: Double(g.nextUniform(0.25, 0.6)) * T,
                  [.heading: g.nextUniform(-15, 10), .trunkFlexion: lean * 0.3, .rightShoulderPlane: 90,
                   .rightShoulderElevation: g.nextUniform(10, 35), .rightShoulderRotation: g.nextUniform(-20, 20),
                   .rightElbowFlexion: g.nextUniform(20, 70), .leftShoulderPlane: g.nextUniform(40, 90),
                   .leftShoulderElevation: g.nextUniform(10, 50), .leftElbowFlexion: g.nextUniform(10, 60),
                   .leftHipFlexion: 0, .rightHipFlexion: 0, .leftKneeFlexion: 5, .rightKneeFlexion: 5], tangent: .still)
            if g.nextBool(probability: 0.2) {  // a practice swing or hesitation
                s.key(after: 0.35 * T, [.rightShoulderElevation: -g.nextUniform(15, 35), .rightElbowFlexion: 10], tangent: .still)
                s.key(after: 0.35 * T, [.rightShoulderElevation: g.nextUniform(15, 35), .rightElbowFlexion: 25], tangent: .still)
                s.hold(Double(g.nextUniform(0.1, 0.5)) * T)
            }
            motionStart = s.time
            if g.nextBool() {  // a small forward lift before the backswing
                s.key(after: 0.2 * T, [.rightShoulderElevation: g.nextUniform(25, 45), .rightElbowFlexion: 20])
            }
            // Top of the backswing: straight arm behind the body, knees bending, the step beginning.
            s.key(after: Double(g.nextUniform(0.3, 0.5)) * T,
                  [.rootZ: stride * 0.15, .trunkFlexion: lean * 0.8, .rightShoulderPlane: g.nextUniform(80, 95),
                   .rightShoulderElevation: -g.nextUniform(25, 60), .rightShoulderRotation: g.nextUniform(-10, 15),
                   .rightElbowFlexion: g.nextUniform(3, 15), .leftHipFlexion: g.nextUniform(8, 20), .leftKneeFlexion: knees,
                   .rightKneeFlexion: knees, .rightHipFlexion: -5, .trunkTwist: -g.nextUniform(0, 15)], tangent: .still)
        }
        // Release: pendulum forward, the opposite foot planted ahead.
        let releaseAngle = bowling ? g.nextUniform(5, 25) : g.nextUniform(42, 66)  // forward of vertical, in the world (the trunk's lean adds to the shoulder angle)
        s.key(after: Double(g.nextUniform(0.22, 0.38)) * T,
              [.rootZ: z + stride * 0.5, .trunkFlexion: lean, .trunkTwist: g.nextUniform(0, 15),
               .rightShoulderElevation: releaseAngle + lean, .rightElbowFlexion: g.nextUniform(5, 20),
               .leftHipFlexion: bowling ? g.nextUniform(50, 75) : g.nextUniform(20, 40),
               .leftKneeFlexion: bowling ? g.nextUniform(55, 80) : knees + 5,
               .rightHipFlexion: bowling ? -g.nextUniform(15, 30) : -g.nextUniform(5, 15),
               .rightKneeFlexion: bowling ? g.nextUniform(30, 60) : knees,
               .leftShoulderPlane: bowling ? 10 : g.nextUniform(30, 80), .leftShoulderElevation: bowling ? 60 : g.nextUniform(10, 40)],
              tangent: .peak(factor: 2.2))
        let release = s.time
        s.key(after: Double(g.nextUniform(0.25, 0.4)) * T,
              [.rootZ: z + stride * 0.6, .trunkFlexion: lean * 0.7,
               .rightShoulderElevation: releaseAngle + lean + g.nextUniform(25, 60) * (bowling ? 1.5 : 1),
               .rightElbowFlexion: g.nextUniform(10, 35), .rightHipFlexion: bowling ? -g.nextUniform(10, 30) : 0], tangent: .still)
        let followThroughEnd = s.time
        s.key(after: Double(g.nextUniform(0.5, 0.9)) * T,
              pose: rest.setting([.rootZ: z + stride * 0.6, .heading: g.nextUniform(-10, 10)]), tangent: .still)
        return ThrowPerformance(kind: .underhand, script: s, motionStart: motionStart, release: release,
                                followThroughEnd: followThroughEnd, stepsWithLeftFoot: true, isLowRelease: bowling)
    }

    static func underleg(from rest: BodyPose, height: Float, tempo: Float, using g: inout SeededGenerator) -> ThrowPerformance {
        let T = Double(tempo * g.nextUniform(0.85, 1.2))
        let sameSide = g.nextBool(probability: 0.6)
        let (hip, knee, stanceKnee): (BodyAngle, BodyAngle, BodyAngle) = sameSide
            ? (.rightHipFlexion, .rightKneeFlexion, .leftKneeFlexion) : (.leftHipFlexion, .leftKneeFlexion, .rightKneeFlexion)
        var s = MotionScript(from: rest)
        s.key(after: Double(g.nextUniform(0.25, 0.6)) * T,
              [.heading: g.nextUniform(-15, 15), .rightShoulderPlane: 90, .rightShoulderElevation: g.nextUniform(10, 35),
               .rightElbowFlexion: g.nextUniform(20, 70)], tangent: .still)
        let motionStart = s.time
        let lean = g.nextUniform(20, 40)
        s.key(after: Double(g.nextUniform(0.3, 0.45)) * T,
              [.trunkFlexion: lean * 0.6, .rightShoulderElevation: -g.nextUniform(15, 45), .rightElbowFlexion: 10,
               hip: g.nextUniform(35, 60), knee: g.nextUniform(50, 80), stanceKnee: 12], tangent: .still)
        // Release under the raised thigh: the arm near vertical in the world, the trunk leaning over it.
        let releaseAngle = g.nextUniform(-5, 15)
        s.key(after: Double(g.nextUniform(0.25, 0.4)) * T,
              [.trunkFlexion: lean, .trunkLateralBend: sameSide ? g.nextUniform(0, 12) : -g.nextUniform(0, 12),
               .rightShoulderPlane: sameSide ? g.nextUniform(85, 100) : g.nextUniform(105, 125),
               .rightShoulderElevation: releaseAngle + lean, .rightElbowFlexion: g.nextUniform(5, 20),
               hip: g.nextUniform(80, 105), knee: g.nextUniform(70, 100), stanceKnee: g.nextUniform(10, 25),
               .leftShoulderPlane: g.nextUniform(0, 40), .leftShoulderElevation: g.nextUniform(30, 70)],
              tangent: .peak(factor: 2.5))
        let release = s.time
        s.key(after: Double(g.nextUniform(0.25, 0.4)) * T,
              [.trunkFlexion: lean * 0.5, .rightShoulderElevation: releaseAngle + lean + g.nextUniform(20, 45), .rightElbowFlexion: 20,
               hip: g.nextUniform(30, 50), knee: 40], tangent: .still)
        let followThroughEnd = s.time
        s.key(after: Double(g.nextUniform(0.45, 0.8)) * T, pose: rest.setting([.heading: g.nextUniform(-10, 10)]), tangent: .still)
        return ThrowPerformance(kind: .underleg, script: s, motionStart: motionStart, release: release,
                                followThroughEnd: followThroughEnd, stepsWithLeftFoot: nil, isLowRelease: false)
    }
}
