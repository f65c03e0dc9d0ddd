import CoachRandom

/// Scripted background actions (everything that is not a throw), each with several
/// variants so that no single pose cue gives a throw away: arms go overhead when
/// stretching or waving, a knee rises in a knee hug, a hand reaches the ground when
/// picking a bag up.
enum BackgroundMotions {
    typealias Field = StickFigurePose.Field

    /// The motion of `action` lasting `duration` seconds, starting from a standing pose.
    static func motion(_ action: BackgroundAction, subject: SyntheticSubject, duration: Float,
                       using generator: inout SeededGenerator) -> ScriptedMotion {
        switch action {
        case .standing: return standing(subject: subject, duration: duration, using: &generator)
        case .walking: return walking(subject: subject, duration: duration, using: &generator)
        case .pickingUp: return pickingUp(subject: subject, duration: duration, using: &generator)
        case .stretching: return stretching(subject: subject, duration: duration, using: &generator)
        case .waving: return waving(subject: subject, duration: duration, using: &generator)
        }
    }

    /// A slow random sway of `field` with about `degrees` amplitude over the whole motion.
    private static func sway(_ field: Field, degrees: Float, duration: Float,
                             using generator: inout SeededGenerator) -> PoseOscillation {
        PoseOscillation(field: field, amplitude: syntheticRadians(degrees * generator.nextUniform(0.3, 1)),
                        frequency: generator.nextUniform(0.15, 0.6), phase: generator.nextUniform(0, 2 * .pi),
                        start: -1, end: duration + 1, fade: 0.01)
    }

    private static func standing(subject: SyntheticSubject, duration: Float,
                                 using generator: inout SeededGenerator) -> ScriptedMotion {
        var pose = StickFigurePose.standing
        let variant = generator.nextInt(below: 5)
        func set(_ field: Field, _ degrees: Float) {
            pose[field] = syntheticRadians(degrees + 4 * generator.nextNormal())
        }
        switch variant {
        case 0: break                                          // arms hanging
        case 1:                                                // holding a bag in front
            set(.rightShoulderFlexion, 28); set(.rightElbowFlexion, 75)
        case 2:                                                // hands clasped in front
            set(.rightShoulderFlexion, 22); set(.rightShoulderAbduction, -12); set(.rightElbowFlexion, 70)
            set(.leftShoulderFlexion, 22); set(.leftShoulderAbduction, -12); set(.leftElbowFlexion, 70)
        case 3:                                                // hands on hips
            set(.rightShoulderAbduction, 45); set(.rightShoulderFlexion, -10); set(.rightArmRotation, -80)
            set(.rightElbowFlexion, 85)
            set(.leftShoulderAbduction, 45); set(.leftShoulderFlexion, -10); set(.leftArmRotation, -80)
            set(.leftElbowFlexion, 85)
        default:                                               // arms crossed
            set(.rightShoulderFlexion, 25); set(.rightArmRotation, -75); set(.rightElbowFlexion, 100)
            set(.leftShoulderFlexion, 25); set(.leftArmRotation, -75); set(.leftElbowFlexion, 100)
        }
        let keys = PoseKeyframes(start: pose)
        var oscillations = [
            sway(.headYaw, degrees: 30, duration: duration, using: &generator),
            sway(.headPitch, degrees: 8, duration: duration, using: &generator),
            sway(.trunkSideBend, degrees: 3, duration: duration, using: &generator),
            sway(.trunkLean, degrees: 3, duration: duration, using: &generator),
        ]
        // Weight shift from foot to foot.
        let shift = sway(.rightHipAbduction, degrees: 4, duration: duration, using: &generator)
        oscillations.append(shift)
        oscillations.append(PoseOscillation(field: .leftHipAbduction, amplitude: -shift.amplitude,
                                            frequency: shift.frequency, phase: shift.phase,
                                            start: shift.start, end: shift.end, fade: shift.fade))
        if variant == 1 && generator.nextBool(probability: 0.5) {      // bouncing the bag
            oscillations.append(PoseOscillation(field: .rightElbowFlexion, amplitude: syntheticRadians(10),
                                                frequency: generator.nextUniform(1.2, 2.2), phase: 0,
                                                start: generator.nextUniform(0, duration / 2), end: duration))
        }
        return .keyframed(keys, oscillations: oscillations)
    }

    private static func walking(subject: SyntheticSubject, duration: Float,
                                using generator: inout SeededGenerator) -> ScriptedMotion {
        let strideDuration = 1.05 * subject.tempo * generator.nextUniform(0.92, 1.08)
        let strideLength = 0.78 * subject.height * subject.limbScale * generator.nextUniform(0.85, 1.05)
        let gait = WalkingGait(
            duration: duration, strideDuration: strideDuration, strideLength: strideLength,
            ramp: generator.nextUniform(0.3, 0.5),
            hipSwing: syntheticRadians(22 * subject.amplitude * generator.nextUniform(0.85, 1.15)),
            kneeSwing: syntheticRadians(50 * generator.nextUniform(0.85, 1.1)),
            armSwing: syntheticRadians(20 * generator.nextUniform(0.6, 1.3)),
            lean: syntheticRadians(generator.nextUniform(2, 7)),
            phase: generator.nextBool() ? 0 : .pi,
            base: StickFigurePose.standing)
        return .walking(gait)
    }

    private static func pickingUp(subject: SyntheticSubject, duration: Float,
                                  using generator: inout SeededGenerator) -> ScriptedMotion {
        var keys = PoseKeyframes(start: StickFigurePose.standing)
        let squat = generator.nextUniform()            // 0 = stoop from the hips, 1 = squat
        let lean = 82 - 45 * squat
        keys.add(at: duration * generator.nextUniform(0.3, 0.4),
                 [(.trunkLean, lean), (.rightHipFlexion, 5 + 80 * squat), (.leftHipFlexion, 5 + 80 * squat),
                  (.rightKneeFlexion, 12 + 95 * squat), (.leftKneeFlexion, 12 + 95 * squat),
                  (.rightShoulderFlexion, lean + 5), (.rightElbowFlexion, 10),
                  (.leftShoulderFlexion, lean * 0.6), (.leftShoulderAbduction, 15), (.leftElbowFlexion, 35),
                  (.headPitch, -25)],
                 amplitude: subject.amplitude, jitter: 0.7, using: &generator)
        keys.add(at: duration * generator.nextUniform(0.5, 0.58), [(.rightElbowFlexion, 25)],
                 jitter: 1, using: &generator)
        keys.add(at: duration, [(.trunkLean, 5), (.rightHipFlexion, 0), (.leftHipFlexion, 0),
                                (.rightKneeFlexion, 5), (.leftKneeFlexion, 5), (.rightShoulderFlexion, 30),
                                (.rightElbowFlexion, 75), (.leftShoulderFlexion, 5), (.leftShoulderAbduction, 8),
                                (.leftElbowFlexion, 15), (.headPitch, 0)],
                 jitter: 0.5, using: &generator)
        return .keyframed(keys, oscillations: [])
    }

    private static func stretching(subject: SyntheticSubject, duration: Float,
                                   using generator: inout SeededGenerator) -> ScriptedMotion {
        var keys = PoseKeyframes(start: StickFigurePose.standing)
        var oscillations: [PoseOscillation] = []
        let a = subject.amplitude
        let up = duration * generator.nextUniform(0.2, 0.3)
        let down = duration * generator.nextUniform(0.7, 0.8)
        let right = generator.nextBool()
        let hip: Field = right ? .rightHipFlexion : .leftHipFlexion
        let knee: Field = right ? .rightKneeFlexion : .leftKneeFlexion
        let shoulder: Field = right ? .rightShoulderFlexion : .leftShoulderFlexion
        let elbow: Field = right ? .rightElbowFlexion : .leftElbowFlexion
        let otherAbduction: Field = right ? .leftShoulderAbduction : .rightShoulderAbduction
        var hold: [(Field, Float)]
        switch generator.nextInt(below: 6) {
        case 0:   // both arms overhead, bending side to side
            hold = [(.rightShoulderFlexion, 170), (.leftShoulderFlexion, 170), (.rightElbowFlexion, 10),
                    (.leftElbowFlexion, 10), (.rightShoulderAbduction, 8), (.leftShoulderAbduction, 8)]
            oscillations.append(PoseOscillation(field: .trunkSideBend, amplitude: syntheticRadians(15 * a),
                                                frequency: generator.nextUniform(0.3, 0.6), phase: 0,
                                                start: up, end: down, fade: 0.3))
        case 1:   // quadriceps stretch: heel to the seat, hand holding the foot
            hold = [(hip, -5), (knee, 150), (shoulder, -35), (elbow, 40), (otherAbduction, 30)]
        case 2:   // toe touch
            hold = [(.trunkLean, 95), (.rightShoulderFlexion, 95), (.leftShoulderFlexion, 95),
                    (.rightElbowFlexion, 5), (.leftElbowFlexion, 5), (.headPitch, -10)]
        case 3:   // knee hugged to the chest
            hold = [(hip, 100), (knee, 125), (.rightShoulderFlexion, 60), (.leftShoulderFlexion, 60),
                    (.rightElbowFlexion, 100), (.leftElbowFlexion, 100), (.trunkLean, 10)]
        case 4:   // trunk twist with elbows up
            hold = [(.rightShoulderFlexion, 80), (.leftShoulderFlexion, 80), (.rightElbowFlexion, 120),
                    (.leftElbowFlexion, 120)]
            oscillations.append(PoseOscillation(field: .trunkTwist, amplitude: syntheticRadians(40 * a),
                                                frequency: generator.nextUniform(0.4, 0.8), phase: 0,
                                                start: up, end: down, fade: 0.3))
        default:  // one arm pulled across the chest
            hold = [(shoulder, 90), (right ? .rightShoulderAbduction : .leftShoulderAbduction, -45), (elbow, 10),
                    (right ? .leftShoulderFlexion : .rightShoulderFlexion, 80),
                    (right ? .leftElbowFlexion : .rightElbowFlexion, 90)]
        }
        keys.add(at: up, hold, amplitude: a, jitter: 0.6, using: &generator)
        keys.add(at: down, [], using: &generator)
        keys.append(StickFigurePose.standing, at: duration)
        return .keyframed(keys, oscillations: oscillations)
    }

    private static func waving(subject: SyntheticSubject, duration: Float,
                               using generator: inout SeededGenerator) -> ScriptedMotion {
        var keys = PoseKeyframes(start: StickFigurePose.standing)
        let right = generator.nextBool(probability: 0.7)
        let flexion: Field = right ? .rightShoulderFlexion : .leftShoulderFlexion
        let abduction: Field = right ? .rightShoulderAbduction : .leftShoulderAbduction
        let rotation: Field = right ? .rightArmRotation : .leftArmRotation
        let elbow: Field = right ? .rightElbowFlexion : .leftElbowFlexion
        let up = min(0.45, duration * 0.25)
        let down = duration - min(0.45, duration * 0.25)
        keys.add(at: up, [(flexion, 25), (abduction, 100), (rotation, 85), (elbow, 45), (.headYaw, 20)],
                 amplitude: subject.amplitude, jitter: 0.6, using: &generator)
        keys.add(at: down, [], using: &generator)
        keys.append(StickFigurePose.standing, at: duration)
        let frequency = generator.nextUniform(1.6, 2.8)
        let oscillations = [
            PoseOscillation(field: elbow, amplitude: syntheticRadians(generator.nextUniform(15, 30)),
                            frequency: frequency, phase: 0, start: up * 0.6, end: down, fade: 0.2),
            PoseOscillation(field: abduction, amplitude: syntheticRadians(generator.nextUniform(3, 10)),
                            frequency: frequency, phase: 0.5, start: up * 0.6, end: down, fade: 0.2),
        ]
        return .keyframed(keys, oscillations: oscillations)
    }
}
