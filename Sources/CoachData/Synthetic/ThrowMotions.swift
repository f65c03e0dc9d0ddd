import CoachRandom

/// Keyframed cornhole throws for a right-handed thrower facing +x (left-handed throws are
/// mirrored later). Times are fractions of the throw; angles degrees.
///
/// The throws differ as real ones do:
/// - overhand: the throwing arm is cocked above the shoulder with the hand behind the head,
///   a stride with the opposite leg, release high and in front, follow-through down;
/// - underhand: a pendulum swing — back behind the hip, forward below the shoulder, a
///   lunge step with the opposite leg, release around waist to chest height;
/// - underleg: one knee lifts to hip height while the arm swings back and forward under
///   the raised thigh, released below the knee.
enum ThrowMotions {
    typealias Field = StickFigurePose.Field

    /// The keyframes of one throw lasting `duration` seconds.
    static func motion(kind: ThrowKind, subject: SyntheticSubject, duration: Float,
                       using generator: inout SeededGenerator) -> ScriptedMotion {
        let amplitude = subject.amplitude
        var keys = PoseKeyframes(start: startPose(using: &generator))
        // Small per-throw timing variation of the interior keys.
        func at(_ fraction: Float) -> Float {
            duration * min(max(fraction + 0.015 * generator.nextNormal(), 0.02), 0.98)
        }
        switch kind {
        case .overhand:
            keys.add(at: at(0.25), [(.rightShoulderFlexion, 150), (.rightShoulderAbduction, 30), (.rightArmRotation, 30),
                                    (.rightElbowFlexion, 115), (.leftShoulderFlexion, 75), (.leftShoulderAbduction, 10),
                                    (.leftElbowFlexion, 20), (.trunkTwist, 35), (.trunkLean, -5), (.headYaw, -18),
                                    (.leftHipFlexion, 15), (.leftKneeFlexion, 20)],
                     amplitude: amplitude, jitter: 1, using: &generator)
            keys.add(at: at(0.44), [(.rightShoulderFlexion, 160), (.rightShoulderAbduction, 28), (.rightElbowFlexion, 105),
                                    (.leftShoulderFlexion, 70), (.trunkTwist, 25), (.trunkLean, 2),
                                    (.leftHipFlexion, 32), (.leftKneeFlexion, 15), (.rightHipFlexion, -12),
                                    (.rightKneeFlexion, 10)],
                     amplitude: amplitude, jitter: 1, using: &generator)
            keys.add(at: at(0.62), [(.rightShoulderFlexion, 150), (.rightShoulderAbduction, 20), (.rightArmRotation, 0),
                                    (.rightElbowFlexion, 15), (.leftShoulderFlexion, 25), (.leftElbowFlexion, 55),
                                    (.trunkTwist, -20), (.trunkLean, 18), (.headYaw, 8), (.leftHipFlexion, 28),
                                    (.leftKneeFlexion, 22), (.rightHipFlexion, -22), (.rightKneeFlexion, 18)],
                     amplitude: amplitude, jitter: 0.6, using: &generator)
            keys.add(at: at(0.80), [(.rightShoulderFlexion, 65), (.rightShoulderAbduction, 12), (.rightElbowFlexion, 25),
                                    (.leftShoulderFlexion, 10), (.leftElbowFlexion, 40), (.trunkTwist, -35),
                                    (.trunkLean, 30), (.headPitch, 10), (.rightHipFlexion, -25), (.rightKneeFlexion, 40),
                                    (.leftHipFlexion, 25), (.leftKneeFlexion, 25)],
                     amplitude: amplitude, jitter: 1, using: &generator)
        case .underhand:
            keys.add(at: at(0.15), [(.rightShoulderFlexion, 15), (.rightElbowFlexion, 25), (.trunkLean, 20),
                                    (.rightKneeFlexion, 18), (.leftKneeFlexion, 18), (.rightHipFlexion, 8),
                                    (.leftHipFlexion, 8), (.headPitch, -15), (.leftShoulderFlexion, 25),
                                    (.leftShoulderAbduction, 15), (.leftElbowFlexion, 30)],
                     amplitude: amplitude, jitter: 1, using: &generator)
            keys.add(at: at(0.40), [(.rightShoulderFlexion, -40), (.rightShoulderAbduction, 6), (.rightElbowFlexion, 8),
                                    (.trunkLean, 25), (.trunkTwist, 12), (.leftHipFlexion, 16), (.leftKneeFlexion, 26),
                                    (.rightKneeFlexion, 24), (.leftShoulderFlexion, 30), (.leftElbowFlexion, 35)],
                     amplitude: amplitude, jitter: 1, using: &generator)
            keys.add(at: at(0.62), [(.rightShoulderFlexion, 70), (.rightElbowFlexion, 12), (.trunkLean, 20),
                                    (.trunkTwist, -5), (.leftHipFlexion, 32), (.leftKneeFlexion, 26),
                                    (.rightHipFlexion, -14), (.rightKneeFlexion, 30)],
                     amplitude: amplitude, jitter: 0.6, using: &generator)
            keys.add(at: at(0.78), [(.rightShoulderFlexion, 86), (.rightElbowFlexion, 18), (.trunkLean, 18),
                                    (.trunkTwist, -10), (.leftHipFlexion, 28), (.leftKneeFlexion, 22),
                                    (.rightHipFlexion, -18), (.rightKneeFlexion, 30)],
                     amplitude: amplitude, jitter: 0.5, using: &generator)
        case .underleg:
            let throwingSide = subject.raisesThrowingSideLeg
            let liftHip: Field = throwingSide ? .rightHipFlexion : .leftHipFlexion
            let liftKnee: Field = throwingSide ? .rightKneeFlexion : .leftKneeFlexion
            let supportKnee: Field = throwingSide ? .leftKneeFlexion : .rightKneeFlexion
            // Under the opposite leg the arm reaches across the body (adduction).
            let reach: Float = throwingSide ? 12 : -14
            keys.add(at: at(0.18), [(.trunkLean, 22), (.rightShoulderFlexion, -25), (.rightElbowFlexion, 12),
                                    (.rightShoulderAbduction, reach), (liftHip, 25), (liftKnee, 35), (supportKnee, 15),
                                    (.headPitch, -10), (.leftShoulderFlexion, 20), (.leftShoulderAbduction, 20),
                                    (.leftElbowFlexion, 30)],
                     amplitude: amplitude, jitter: 1, using: &generator)
            keys.add(at: at(0.42), [(liftHip, 95), (liftKnee, 95), (.trunkLean, 30), (supportKnee, 22),
                                    (.rightShoulderFlexion, -15), (.rightElbowFlexion, 10),
                                    (.leftShoulderFlexion, 30), (.leftShoulderAbduction, 35), (.headPitch, -20)],
                     amplitude: amplitude, jitter: 0.6, using: &generator)
            keys.add(at: at(0.58), [(liftHip, 100), (liftKnee, 100), (.rightShoulderFlexion, 50),
                                    (.rightElbowFlexion, 15), (.trunkLean, 28)],
                     amplitude: amplitude, jitter: 0.5, using: &generator)
            keys.add(at: at(0.75), [(.rightShoulderFlexion, 80), (.rightElbowFlexion, 20), (liftHip, 55),
                                    (liftKnee, 60), (.trunkLean, 18), (supportKnee, 15), (.headPitch, -5)],
                     amplitude: amplitude, jitter: 1, using: &generator)
        }
        keys.append(recoveryPose(from: keys.lastPose, using: &generator), at: duration)
        return .keyframed(keys, oscillations: [])
    }

    /// Standing at the line holding the bag in front, ready to throw.
    static func startPose(using generator: inout SeededGenerator) -> StickFigurePose {
        var pose = StickFigurePose.standing
        pose[.rightShoulderFlexion] = syntheticRadians(30 + 6 * generator.nextNormal())
        pose[.rightShoulderAbduction] = syntheticRadians(10)
        pose[.rightElbowFlexion] = syntheticRadians(72 + 8 * generator.nextNormal())
        pose[.leftShoulderFlexion] = syntheticRadians(12 + 5 * generator.nextNormal())
        pose[.leftElbowFlexion] = syntheticRadians(28 + 8 * generator.nextNormal())
        pose[.trunkLean] = syntheticRadians(6 + 2 * generator.nextNormal())
        return pose
    }

    /// The relaxed pose after the follow-through, arms down, feet together.
    static func recoveryPose(from pose: StickFigurePose, using generator: inout SeededGenerator) -> StickFigurePose {
        var recovered = StickFigurePose.standing
        recovered[.rootForward] = pose[.rootForward]
        recovered[.rootSide] = pose[.rootSide]
        recovered[.rightShoulderFlexion] = syntheticRadians(14 + 5 * generator.nextNormal())
        recovered[.rightElbowFlexion] = syntheticRadians(22 + 6 * generator.nextNormal())
        recovered[.trunkLean] = syntheticRadians(5 + 2 * generator.nextNormal())
        return recovered
    }
}
