import Foundation
import CoachRandom

/// A clip's actions laid end to end in world space: each action's motion is placed at
/// the spot and heading where the previous one ended, neighbouring actions cross-fade
/// over a few frames, and a little clip-wide sway keeps even still poses alive.
struct ActionTimeline {
    struct Entry {
        var action: SyntheticAction
        var start: Float
        var duration: Float
        var motion: ScriptedMotion
        /// World heading of the motion's local +x axis.
        var heading: Float
        /// World (forward, side) position of the motion's local origin.
        var origin: SIMD2<Float>
    }

    private(set) var entries: [Entry] = []
    private var sways: [PoseOscillation] = []
    /// Half the cross-fade between neighbouring actions, in seconds.
    private let blendHalfWidth: Float = 0.15

    /// The timeline of `steps` for `subject`, drawing every variation from `generator`.
    init(steps: [ThrowClipPlan.Step], subject: SyntheticSubject, using generator: inout SeededGenerator) {
        var start: Float = 0
        var heading: Float = 0
        var origin = SIMD2<Float>(0, 0)
        for (index, step) in steps.enumerated() {
            let duration = Float(step.duration)
            let next = index + 1 < steps.count ? steps[index + 1].action : nil
            let previous = index > 0 ? steps[index - 1].action : nil
            let motion: ScriptedMotion
            var chosen: Float
            switch step.action {
            case .throwing(let kind):
                motion = ThrowMotions.motion(kind: kind, subject: subject, duration: duration, using: &generator)
                chosen = syntheticRadians(4 * generator.nextNormal())
            case .background(let action):
                motion = BackgroundMotions.motion(action, subject: subject, duration: duration, using: &generator)
                chosen = Self.heading(for: action, previous: previous, next: next, current: heading,
                                      isFirst: index == 0, using: &generator)
            }
            // Turn the short way round.
            var turn = (chosen - heading).truncatingRemainder(dividingBy: 2 * .pi)
            if turn > .pi { turn -= 2 * .pi }
            if turn < -.pi { turn += 2 * .pi }
            heading = index == 0 ? chosen : heading + turn
            entries.append(Entry(action: step.action, start: start, duration: duration, motion: motion,
                                 heading: heading, origin: origin))
            let end = Self.placed(motion.pose(at: duration), heading: heading, origin: origin)
            origin = SIMD2(end[.rootForward], end[.rootSide])
            start += duration
        }
        let swayFields: [(StickFigurePose.Field, Float)] = [
            (.headYaw, 4), (.headPitch, 3), (.trunkLean, 1.5), (.trunkSideBend, 1.5),
            (.rightShoulderFlexion, 3), (.leftShoulderFlexion, 3),
            (.rightShoulderAbduction, 2), (.leftShoulderAbduction, 2),
        ]
        sways = swayFields.map { field, degrees in
            PoseOscillation(field: field, amplitude: syntheticRadians(degrees * generator.nextUniform(0.3, 1)),
                            frequency: generator.nextUniform(0.2, 1.0), phase: generator.nextUniform(0, 2 * .pi),
                            start: -1, end: start + 1, fade: 0.01)
        }
    }

    /// The world heading a background action faces, given its neighbours.
    private static func heading(for action: BackgroundAction, previous: SyntheticAction?, next: SyntheticAction?,
                                current: Float, isFirst: Bool,
                                using generator: inout SeededGenerator) -> Float {
        let beforeThrow = next?.throwKind != nil
        switch action {
        case .standing:
            if beforeThrow { return syntheticRadians(8 * generator.nextNormal()) }
            if isFirst { return syntheticRadians(generator.nextUniform(-70, 70)) }
            return current + syntheticRadians(10 * generator.nextNormal())
        case .walking:
            let directions: [Float] = beforeThrow ? [0, 90, -90] : [0, 180, 90, -90]
            let direction = directions[generator.nextInt(below: directions.count)]
            return syntheticRadians(direction + 15 * generator.nextNormal())
        case .pickingUp, .stretching, .waving:
            let away: Float = generator.nextBool(probability: 0.2) ? 180 : 0
            return syntheticRadians(away + generator.nextUniform(-70, 70))
        }
    }

    /// `pose` (in a motion's local frame) moved to `origin` and turned by `heading`.
    private static func placed(_ pose: StickFigurePose, heading: Float, origin: SIMD2<Float>) -> StickFigurePose {
        var world = pose
        let x = pose[.rootForward], z = pose[.rootSide]
        let c = cos(heading), s = sin(heading)
        world[.rootForward] = origin.x + x * c + z * s
        world[.rootSide] = origin.y - x * s + z * c
        world[.heading] = pose[.heading] + heading
        return world
    }

    /// The total length in seconds.
    var duration: Float {
        guard let last = entries.last else { return 0 }
        return last.start + last.duration
    }

    private func worldPose(of index: Int, at time: Float) -> StickFigurePose {
        let entry = entries[index]
        return Self.placed(entry.motion.pose(at: time - entry.start), heading: entry.heading, origin: entry.origin)
    }

    /// The world pose at `time` seconds.
    func pose(at time: Float) -> StickFigurePose {
        guard !entries.isEmpty else { return StickFigurePose.standing }
        var index = 0
        while index + 1 < entries.count && entries[index + 1].start <= time { index += 1 }
        var pose = worldPose(of: index, at: time)
        // Cross-fade with the neighbour whose boundary is near.
        let entry = entries[index]
        if index + 1 < entries.count {
            let boundary = entry.start + entry.duration
            let half = min(blendHalfWidth, 0.3 * min(entry.duration, entries[index + 1].duration))
            if time > boundary - half {
                let w = (time - (boundary - half)) / (2 * half)
                pose = pose.blended(with: worldPose(of: index + 1, at: time), weight: w * w * (3 - 2 * w))
            }
        }
        if index > 0 {
            let boundary = entry.start
            let half = min(blendHalfWidth, 0.3 * min(entry.duration, entries[index - 1].duration))
            if time < boundary + half {
                let w = (time - (boundary - half)) / (2 * half)
                pose = worldPose(of: index - 1, at: time).blended(with: pose, weight: w * w * (3 - 2 * w))
            }
        }
        for sway in sways {
            pose[sway.field] += sway.value(at: time)
        }
        return pose
    }
}
