import CoachData
import CoachTensor
import Foundation

/// How a hand-pose classifier turns one pose into its input tensor — shared by training,
/// evaluation and `CoachRuntime.HandPoseClassifier`, so they can never preprocess differently.
///
/// Each pose is normalised on its own: it is moved so that the anchor joint (the wrist; the mean
/// of the detected joints when there is no wrist or it was not detected) is at the origin, left
/// hands are mirrored when `chirality` is `mirrorLeftHands`, the pose is optionally turned upright
/// (`rotation`), and coordinates are divided by the hand's size (`scale`). Image position, hand
/// size, camera distance and units thus drop out. Undetected joints are zero in every channel.
/// The result is [N, 1, J, K] (one frame, so the action network's graph layers apply) with
/// channels x, y, [z,] confidence, then [left, right] when chirality is an input.
public struct HandPoseInputEncoding: Codable, Equatable, Hashable, Sendable {
    /// What a pose is divided by.
    public enum Scale: String, Codable, CaseIterable, Hashable, Sendable {
        /// The root-mean-square distance of the detected joints from their mean (robust to any
        /// missing joint and to foreshortening of the palm).
        case spread
        /// The mean distance from the wrist to the detected finger knuckles (MCP joints); `spread`
        /// when the wrist or every knuckle is missing.
        case palm
    }

    /// How a pose is turned before the network sees it.
    public enum Rotation: String, Codable, CaseIterable, Hashable, Sendable {
        /// Not turned: the hand's angle on screen reaches the network (thumbs up ≠ thumbs down).
        case none
        /// Turned so the wrist-to-knuckles direction points up: the hand's angle drops out.
        case upright
    }

    /// Joints per pose (J).
    public var jointCount: Int
    /// Whether poses carry z (a channel after y).
    public var includesDepth: Bool
    /// The joint poses are centred on (the wrist), when the joint set has one.
    public var anchorJoint: Int?
    /// The finger knuckles (MCP joints), for `palm` scale and `upright` rotation.
    public var palmJoints: [Int]
    /// What poses are divided by.
    public var scale: Scale
    /// How poses are turned.
    public var rotation: Rotation
    /// How chirality is used.
    public var chirality: ChiralityHandling

    /// An encoding of poses over `jointSet`: its `wrist` is the anchor and its joints named `…MCP`
    /// are the knuckles.
    public init(jointSet: JointSet, includesDepth: Bool, scale: Scale = .spread, rotation: Rotation = .none,
                chirality: ChiralityHandling = .mirrorLeftHands) {
        jointCount = jointSet.count
        self.includesDepth = includesDepth
        anchorJoint = jointSet.index(of: "wrist")
        palmJoints = jointSet.names.indices.filter { jointSet.names[$0].hasSuffix("MCP") }
        self.scale = scale
        self.rotation = rotation
        self.chirality = chirality
    }

    /// The raw keypoint channels a pose must provide, in order (`x`, `y`, [`z`,] `confidence`).
    public var keypointChannels: [String] { includesDepth ? ["x", "y", "z", "confidence"] : ["x", "y", "confidence"] }

    /// The encoded channels K, in tensor order.
    public var channelNames: [String] { keypointChannels + chirality.channelNames }

    /// The number of encoded channels K.
    public var channelCount: Int { channelNames.count }

    /// The input tensor shape for `count` poses: [N, 1, J, K].
    public func shape(count: Int) -> [Int] { [count, 1, jointCount, channelCount] }

    /// Encodes one-frame `poses` (each of `jointCount` joints; see `PoseWindow(keypoints:hasDepth:chirality:)`)
    /// as [N, 1, J, K].
    public func encode(_ poses: [PoseWindow]) -> Tensor {
        let perPose = jointCount * channelCount
        for pose in poses {
            precondition(pose.jointCount == jointCount, "a pose of \(pose.jointCount) joints does not fit the encoding's \(jointCount)")
        }
        return Tensor(shape: shape(count: poses.count)) { out in
            for (n, pose) in poses.enumerated() {
                encode(pose, into: UnsafeMutableBufferPointer(rebasing: out[(n * perPose)..<((n + 1) * perPose)]))
            }
        }
    }

    /// One pose's [J, K] values, joint-major (the first frame of `pose` is used).
    public func encoded(_ pose: PoseWindow) -> [Float] {
        [Float](unsafeUninitializedCapacity: jointCount * channelCount) { buffer, count in
            encode(pose, into: UnsafeMutableBufferPointer(rebasing: buffer[0..<(jointCount * channelCount)]))
            count = jointCount * channelCount
        }
    }

    /// Writes one pose's [J, K] values into `out`.
    func encode(_ pose: PoseWindow, into out: UnsafeMutableBufferPointer<Float>) {
        for i in 0..<out.count { out[i] = 0 }
        let j = jointCount, k = channelCount
        let detected = (0..<j).filter { pose.confidence[$0] > 0 }
        guard !detected.isEmpty else { return }
        let z = includesDepth ? pose.z : nil
        func depth(_ joint: Int) -> Float { z?[joint] ?? 0 }

        // The mean of the detected joints, and their spread about it.
        var mean = (x: 0.0, y: 0.0, z: 0.0)
        for joint in detected { mean.x += Double(pose.x[joint]); mean.y += Double(pose.y[joint]); mean.z += Double(depth(joint)) }
        let n = Double(detected.count)
        mean = (mean.x / n, mean.y / n, mean.z / n)
        var squares = 0.0
        for joint in detected {
            let dx = Double(pose.x[joint]) - mean.x, dy = Double(pose.y[joint]) - mean.y, dz = Double(depth(joint)) - mean.z
            squares += dx * dx + dy * dy + dz * dz
        }
        let spread = Float((squares / n).squareRoot())

        // The anchor: the wrist when detected, else the mean.
        var anchor = (x: Float(mean.x), y: Float(mean.y), z: Float(mean.z))
        var anchoredOnJoint = false
        if let wrist = anchorJoint, wrist < j, pose.confidence[wrist] > 0 {
            anchor = (pose.x[wrist], pose.y[wrist], depth(wrist))
            anchoredOnJoint = true
        }
        let sign = chirality.horizontalSign(for: pose.chirality)
        var dx = [Float](repeating: 0, count: j), dy = dx, dz = dx
        for joint in detected {
            dx[joint] = sign * (pose.x[joint] - anchor.x)
            dy[joint] = pose.y[joint] - anchor.y
            dz[joint] = depth(joint) - anchor.z
        }

        // The knuckles' mean relative to the anchor: the palm's direction and size.
        let knuckles = palmJoints.filter { $0 < j && pose.confidence[$0] > 0 }
        var palmDirection: (x: Float, y: Float)? = nil
        var palmSize: Float = 0
        if anchoredOnJoint, !knuckles.isEmpty {
            var sx: Float = 0, sy: Float = 0
            for joint in knuckles {
                sx += dx[joint]; sy += dy[joint]
                palmSize += (dx[joint] * dx[joint] + dy[joint] * dy[joint] + dz[joint] * dz[joint]).squareRoot()
            }
            palmDirection = (sx / Float(knuckles.count), sy / Float(knuckles.count))
            palmSize /= Float(knuckles.count)
        }

        var size = scale == .palm && palmSize > 0 ? palmSize : spread
        if !(size > 1e-12) || !size.isFinite { size = 1 }
        let inverse = 1 / size

        // Upright: turn the palm direction (a, b) onto straight up (0, −1) in top-left coordinates.
        var c: Float = 1, s: Float = 0
        if rotation == .upright, let direction = palmDirection {
            let length = (direction.x * direction.x + direction.y * direction.y).squareRoot()
            if length > 1e-12 {
                let a = direction.x / length, b = direction.y / length
                c = -b
                s = -a
            }
        }
        let confidenceChannel = includesDepth ? 3 : 2
        let hand = chirality.channelValues(for: pose.chirality)
        for joint in detected {
            let base = joint * k
            out[base] = (c * dx[joint] - s * dy[joint]) * inverse
            out[base + 1] = (s * dx[joint] + c * dy[joint]) * inverse
            if includesDepth { out[base + 2] = dz[joint] * inverse }
            out[base + confidenceChannel] = pose.confidence[joint]
            if chirality == .input {
                out[base + confidenceChannel + 1] = hand.left
                out[base + confidenceChannel + 2] = hand.right
            }
        }
    }
}
