/// Writes a motion as a sequence of key poses, each a change from the one before: the way the
/// throw and background motions are scripted. Times are seconds from the script's start; the
/// body starts at the origin facing +z.
public struct MotionScript: Sendable {
    /// The key poses so far.
    public private(set) var keyframes: [PoseKeyframe]
    /// The time of the last key pose.
    public private(set) var time: Double
    /// The last key pose.
    public private(set) var pose: BodyPose

    /// A script starting from `pose` at time 0.
    public init(from pose: BodyPose) {
        self.pose = pose
        time = 0
        keyframes = [PoseKeyframe(time: 0, pose: pose, tangent: .still)]
    }

    /// Adds a key pose `seconds` after the last one: the last pose with `changes` (degrees,
    /// metres for the root).
    public mutating func key(after seconds: Double, _ changes: [BodyAngle: Float], tangent: PoseKeyframe.Tangent = .automatic) {
        key(after: seconds, pose: pose.setting(changes), tangent: tangent)
    }

    /// Adds the key pose `pose` `seconds` after the last one.
    public mutating func key(after seconds: Double, pose: BodyPose, tangent: PoseKeyframe.Tangent = .automatic) {
        time += max(seconds, 0.01)
        self.pose = pose
        keyframes.append(PoseKeyframe(time: time, pose: pose, tangent: tangent))
    }

    /// Holds the last pose for `seconds` (a pause).
    public mutating func hold(_ seconds: Double) {
        key(after: seconds, pose: pose, tangent: .still)
    }

    /// The value of `angle` in the last pose, in degrees (metres for the root).
    public func degrees(_ angle: BodyAngle) -> Float { pose.degrees(angle) }
}

/// The person performing a motion: body, handedness and tempo.
public struct Performer: Equatable, Sendable {
    /// An identifier, unique within a dataset.
    public var identifier: Int
    /// Bone lengths.
    public var proportions: BodyProportions
    /// Whether the person throws (and waves, picks up…) with the left hand; their motions are
    /// the right-handed scripts mirrored.
    public var isLeftHanded: Bool
    /// Duration multiplier of everything the person does (below 1 = quicker).
    public var tempo: Float
    /// A standing posture of the person's own (arm carriage, knee bend, stance width).
    public var restingPose: BodyPose

    /// A performer with the given traits.
    public init(identifier: Int, proportions: BodyProportions, isLeftHanded: Bool, tempo: Float, restingPose: BodyPose) {
        self.identifier = identifier
        self.proportions = proportions
        self.isLeftHanded = isLeftHanded
        self.tempo = tempo
        self.restingPose = restingPose
    }
}
