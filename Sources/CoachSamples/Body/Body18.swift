/// Vision's 18 body joints in Create ML's tensor order (FORMATS.md §3.1), as indices.
public enum Body18: Int, CaseIterable, Sendable {
    /// Head, neck and arms (Vision's `nose` is the nose; `neck` is the midpoint of the shoulders).
    case nose, neck, rightShoulder, rightElbow, rightWrist, leftShoulder, leftElbow, leftWrist
    /// Legs, then eyes and ears.
    case rightHip, rightKnee, rightAnkle, leftHip, leftKnee, leftAnkle, rightEye, leftEye, rightEar, leftEar

    /// The joint's name as written in pose files (`rightWrist`).
    public var name: String { "\(self)" }

    /// The joint on the other side of the body (itself for nose and neck).
    public var mirrorPartner: Body18 {
        let name = self.name
        let partner: String
        if name.hasPrefix("left") { partner = "right" + name.dropFirst(4) }
        else if name.hasPrefix("right") { partner = "left" + name.dropFirst(5) }
        else { return self }
        return Body18.allCases.first { $0.name == partner } ?? self
    }

    /// Whether the joint belongs to the face (nose, eyes, ears).
    public var isFace: Bool { self == .nose || rawValue >= Body18.rightEye.rawValue }
}

/// Where a body's 18 joints are in the world at one instant (metres, y up), with the facing
/// directions the simulated pose detector needs to tell which joints the body hides.
public struct Body3D: Equatable, Sendable {
    /// One position per `Body18` joint, in its order.
    public var joints: [SIMD3<Float>]
    /// Unit vector the face points along.
    public var headForward: SIMD3<Float>
    /// Unit vector the chest points along.
    public var chestForward: SIMD3<Float>
    /// The person's standing height (m), the scale of detector noise.
    public var height: Float

    /// A body with the given joints and facing directions.
    public init(joints: [SIMD3<Float>], headForward: SIMD3<Float>, chestForward: SIMD3<Float>, height: Float) {
        self.joints = joints
        self.headForward = headForward
        self.chestForward = chestForward
        self.height = height
    }

    /// The position of `joint`.
    public subscript(joint: Body18) -> SIMD3<Float> { joints[joint.rawValue] }
}
