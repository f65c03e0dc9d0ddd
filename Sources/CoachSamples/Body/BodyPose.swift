/// One pose of the sample body: a value for every `BodyAngle` (radians, metres for the root).
public struct BodyPose: Equatable, Sendable {
    /// Values indexed by `BodyAngle.rawValue`.
    public var values: [Float]

    /// A pose with the given values (one per `BodyAngle`).
    public init(values: [Float]) {
        precondition(values.count == BodyAngle.allCases.count, "a BodyPose needs one value per BodyAngle")
        self.values = values
    }

    /// Standing upright facing forward at the origin, arms hanging slightly away from the body,
    /// elbows and knees a little bent.
    public static let standing: BodyPose = {
        var pose = BodyPose(values: [Float](repeating: 0, count: BodyAngle.allCases.count))
        pose.set([.rightShoulderElevation: 8, .leftShoulderElevation: 8, .rightShoulderPlane: 20, .leftShoulderPlane: 20,
                  .rightElbowFlexion: 12, .leftElbowFlexion: 12, .rightKneeFlexion: 4, .leftKneeFlexion: 4,
                  .rightHipAbduction: 4, .leftHipAbduction: 4])
        return pose
    }()

    /// The value of `angle` (radians or metres).
    public subscript(angle: BodyAngle) -> Float {
        get { values[angle.rawValue] }
        set { values[angle.rawValue] = newValue }
    }

    /// Sets angles given in degrees (translations in metres).
    public mutating func set(_ changes: [BodyAngle: Float]) {
        for (angle, value) in changes {
            self[angle] = angle.isTranslation ? value : radians(value)
        }
    }

    /// A copy with angles set in degrees (translations in metres).
    public func setting(_ changes: [BodyAngle: Float]) -> BodyPose {
        var copy = self
        copy.set(changes)
        return copy
    }

    /// The value of `angle` in degrees (metres for translations).
    public func degrees(_ angle: BodyAngle) -> Float {
        angle.isTranslation ? self[angle] : self[angle] * 180 / .pi
    }

    /// The same pose performed by the body's mirror image: left and right swapped, sideways
    /// positions, turns and side bends negated (a left-hander's version of a right-hander's move).
    public func mirrored() -> BodyPose {
        var result = self
        for angle in BodyAngle.allCases {
            let value = values[angle.mirrorPartner.rawValue]
            result.values[angle.rawValue] = angle.isNegatedByMirroring ? -value : value
        }
        return result
    }
}
