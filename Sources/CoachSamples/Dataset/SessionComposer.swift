import CoachRandom

/// Chains scripted motions into one session of a person around the game: each script (written
/// in its own frame, starting at the origin facing +z) is placed where and as the last one
/// ended, mirrored for a left-handed person, and joined by the spline of one `MotionTrack`.
public struct SessionComposer: Sendable {
    /// The key poses so far, in the scene's frame (the target lies along +z).
    public private(set) var keyframes: [PoseKeyframe]
    /// The time the last script ends.
    public private(set) var time: Double = 0
    /// Where the person stands (x, z) when the last script ends.
    public private(set) var position: SIMD2<Float>
    /// Which way the person faces (radians) when the last script ends.
    public private(set) var heading: Float
    /// Whether scripts are mirrored (a left-handed person).
    public var mirrors: Bool

    /// A session starting from `rest` at (`position`) facing `heading` radians.
    public init(rest: BodyPose, position: SIMD2<Float> = .zero, heading: Float = 0, mirrors: Bool) {
        self.position = position
        self.heading = heading
        self.mirrors = mirrors
        var start = mirrors ? rest.mirrored() : rest
        start[.rootX] = position.x
        start[.rootZ] = position.y
        start[.heading] = heading
        keyframes = [PoseKeyframe(time: 0, pose: start, tangent: .still)]
    }

    /// Appends `script`; when `facing` is given, the person first turns to face that heading
    /// (the nearer way round) and the script is performed facing it. Returns the script's start
    /// time in the session.
    @discardableResult
    public mutating func append(_ script: MotionScript, facing: Float? = nil) -> Double {
        if let facing {
            var turn = (facing - heading).truncatingRemainder(dividingBy: 2 * .pi)
            if turn > .pi { turn -= 2 * .pi }
            if turn < -.pi { turn += 2 * .pi }
            heading += turn
        }
        let start = time
        let rotation = Rotation3.aboutY(heading)
        for keyframe in script.keyframes.dropFirst() {
            var pose = mirrors ? keyframe.pose.mirrored() : keyframe.pose
            let offset = rotation.apply(SIMD3(pose[.rootX], 0, pose[.rootZ]))
            pose[.rootX] = position.x + offset.x
            pose[.rootZ] = position.y + offset.z
            pose[.heading] += heading
            keyframes.append(PoseKeyframe(time: start + keyframe.time, pose: pose, tangent: keyframe.tangent))
        }
        time = start + script.time
        if let last = keyframes.last {
            position = SIMD2(last.pose[.rootX], last.pose[.rootZ])
            heading = last.pose[.heading]
        }
        return start
    }

    /// The session as a track.
    public var track: MotionTrack { MotionTrack(keyframes: keyframes) }
}
