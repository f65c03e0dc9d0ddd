import CoachData
import CoachRandom

extension ThrowDatasetGenerator {
    /// A scripted session of `performer`: background activities, then (with `kind`) turning to
    /// the target, the throw and more background activities, filmed by a random camera.
    public func renderScripted(name: String, throwing kind: ThrowKind?, performer: Performer,
                               using g: inout SeededGenerator) -> GeneratedClip {
        let c = configuration
        let height = performer.proportions.height
        var session = SessionComposer(rest: performer.restingPose, heading: g.nextUniform(-.pi, .pi),
                                      mirrors: performer.isLeftHanded)
        var activities: [String] = []
        let totalWeight = c.backgroundActivities.reduce(Float(0)) { $0 + $1.weight }
        func fill(_ seconds: Double) {
            var left = seconds
            while left > 0.4 {
                var draw = g.nextUniform() * totalWeight
                var activity = c.backgroundActivities[c.backgroundActivities.count - 1]
                for candidate in c.backgroundActivities {
                    draw -= candidate.weight
                    if draw < 0 { activity = candidate; break }
                }
                let hint = min(left, Double(g.nextUniform(1.2, 3.5)))
                let script = BackgroundMotions.perform(activity, from: performer.restingPose, height: height,
                                                       tempo: performer.tempo, duration: hint, using: &g)
                session.append(script, facing: activity == .walking ? nil : session.heading + g.nextUniform(-0.8, 0.8))
                activities.append(activity.rawValue)
                left -= script.time
            }
        }
        func draw(_ range: ClosedRange<Double>) -> Double { Double(g.nextUniform(Float(range.lowerBound), Float(range.upperBound))) }
        var performance: ThrowPerformance? = nil
        var offset = 0.0
        var throwSegment: ClosedRange<Double>? = nil
        if let kind {
            fill(draw(c.backgroundAroundThrowRange))
            var settle = MotionScript(from: performer.restingPose)
            settle.key(after: Double(g.nextUniform(0.6, 1.1)), pose: performer.restingPose, tangent: .still)
            session.append(settle, facing: g.nextUniform(-0.3, 0.3))
            let thrown = ThrowMotions.perform(kind, from: performer.restingPose, height: height, tempo: performer.tempo, using: &g)
            offset = session.append(thrown.script)
            activities.append(kind.rawValue)
            performance = thrown
            fill(draw(c.backgroundAroundThrowRange))
            // Annotators mark a throw loosely: from a little before the wind-up to a while after the follow-through.
            throwSegment = (offset + thrown.motionStart - Double(g.nextUniform(0, 0.6)))...(offset + thrown.followThroughEnd
                + Double(g.nextUniform(0.1, 0.8)))
        } else {
            fill(draw(c.backgroundClipDurationRange))
        }
        let track = session.track
        let frameRate = c.frameRates[g.nextInt(below: c.frameRates.count)]
        let frameCount = Int((track.endTime * frameRate).rounded(.down)) + 1
        let kinematics = ForwardKinematics(proportions: performer.proportions)
        let poses = (0..<frameCount).map { track.pose(at: Double($0) / frameRate) }
        let bodies = poses.map(kinematics.body)
        // The phone films the thrower at the line (or, without a throw, where the person mostly is).
        var centre = SIMD3<Float>(0, 0, 0)
        if let release = performance.map({ $0.release + offset }) {
            let pose = track.pose(at: release)
            centre = SIMD3(pose[.rootX], 0, pose[.rootZ])
        } else {
            for keyframe in track.keyframes { centre += SIMD3(keyframe.pose[.rootX], 0, keyframe.pose[.rootZ]) }
            centre /= Float(track.keyframes.count)
        }
        let (camera, shake) = c.cameraPlacement.random(around: centre, height: height, heading: 0, using: &g)
        let observed = c.detector.observe(bodies, camera: camera, shake: shake, frameRate: frameRate, using: &g)
        let duration = Double(frameCount - 1) / frameRate
        var segments: [PoseSegment] = []
        if let throwSegment, let kind {
            let start = max(throwSegment.lowerBound, 0), end = min(throwSegment.upperBound, duration)
            if start > 0.3 { segments.append(PoseSegment(label: c.backgroundLabel, start: 0, end: start)) }
            segments.append(PoseSegment(label: kind.rawValue, start: start, end: end))
            if duration - end > 0.3 { segments.append(PoseSegment(label: c.backgroundLabel, start: end, end: duration)) }
        } else {
            segments.append(PoseSegment(label: c.backgroundLabel, start: 0, end: duration))
        }
        return GeneratedClip(name: name, source: .scripted(performer: performer.identifier), frameRate: frameRate,
                             frames: observed.frames, bodies: bodies, poses: poses, truePositions: observed.truth,
                             camera: camera, segments: segments, label: kind?.rawValue ?? c.backgroundLabel,
                             throwPerformance: performance, throwOffset: offset, isLeftHanded: performer.isLeftHanded,
                             activities: activities, writesJSON: false, writesMissingJointsAsEmptyCells: false)
    }

    /// An excerpt of a random trial of `captures` by a person of random height, turned, maybe
    /// mirrored, filmed by a random camera; the whole clip is background.
    public func renderMotionCapture(name: String, from captures: [MocapClip], using g: inout SeededGenerator) -> GeneratedClip {
        let c = configuration
        let clip = captures[g.nextInt(below: captures.count)]
        let wanted = Double(g.nextUniform(Float(c.backgroundClipDurationRange.lowerBound), Float(c.backgroundClipDurationRange.upperBound)))
        let duration = min(wanted, clip.duration)
        let start = Double(g.nextUniform(0, Float(max(clip.duration - duration, 0))))
        let frameRate = c.frameRates[g.nextInt(below: c.frameRates.count)]
        let height = g.nextUniform(c.heightRange.lowerBound, c.heightRange.upperBound)
        let mirrored = g.nextBool()
        let bodies = MotionCaptureLibrary.bodies(of: clip, start: start, duration: duration, frameRate: frameRate,
                                                 height: height, yaw: g.nextUniform(-.pi, .pi), mirrored: mirrored)
        let (camera, shake) = c.cameraPlacement.random(around: .zero, height: height, heading: 0, using: &g)
        let observed = c.detector.observe(bodies, camera: camera, shake: shake, frameRate: frameRate, using: &g)
        let length = Double(bodies.count - 1) / frameRate
        return GeneratedClip(name: name, source: .motionCapture(trial: clip.name), frameRate: frameRate,
                             frames: observed.frames, bodies: bodies, poses: [], truePositions: observed.truth,
                             camera: camera, segments: [PoseSegment(label: c.backgroundLabel, start: 0, end: length)],
                             label: c.backgroundLabel, throwPerformance: nil, throwOffset: 0, isLeftHanded: mirrored,
                             activities: [], writesJSON: false, writesMissingJointsAsEmptyCells: false)
    }
}
