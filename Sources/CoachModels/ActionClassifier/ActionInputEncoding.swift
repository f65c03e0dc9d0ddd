import CoachData
import CoachTensor

/// How an action classifier turns pose windows into its input tensor — shared by training,
/// evaluation and `CoachRuntime`, so they can never preprocess differently.
///
/// Each window is normalised on its own: the mean of its detected keypoints (all frames) moves to
/// the origin and, with `.centreAndSpread`, coordinates are divided by the pose's size (the
/// window's `spread`: how far joints lie from their frame's mean, averaged over frames). Unit,
/// camera distance and position in the image thus drop out, while the motion within the window
/// stays. Undetected joints and padding frames are zero in every channel, whatever the centre.
/// The result is [N, T, J, K] with channels x, y, [z,] confidence, then (with `includesVelocity`)
/// the frame-to-frame change dx, dy, [dz] of joints detected in both frames, then (with
/// `chirality` `.input`) the hand as two channels left, right. With `.mirrorLeftHands`, windows of
/// a left hand are mirrored (x negated after centring; hand joints have no left/right pairs).
public struct ActionInputEncoding: Codable, Equatable, Hashable, Sendable {
    /// How positions are normalised per window.
    public enum Normalization: String, Codable, Hashable, Sendable {
        /// Centre on the window's mean keypoint, then divide by the pose's size (`PoseWindow.spread`).
        case centreAndSpread = "centre-and-spread"
        /// Centre on the window's mean keypoint, then divide by the keypoints' RMS distance from it
        /// (`PoseWindow.extent`: pose and motion together).
        case centreAndExtent = "centre-and-extent"
        /// Centre on the window's mean keypoint only (for a single joint, whose motion is its
        /// only size: dividing by it would erase the difference between small and large gestures).
        case centre = "centre"
    }

    /// Frames per window (T).
    public var windowLength: Int
    /// Joints per frame (J).
    public var jointCount: Int
    /// Whether the poses carry z (a channel after y).
    public var includesDepth: Bool
    /// Whether velocity channels follow the position and confidence channels.
    public var includesVelocity: Bool
    /// The per-window normalisation.
    public var normalization: Normalization
    /// How the window's chirality (hand) is used; `.ignore` (the default) for body poses.
    public var chirality: ChiralityHandling

    /// An encoding of `windowLength` × `jointCount` windows.
    public init(windowLength: Int, jointCount: Int, includesDepth: Bool, includesVelocity: Bool = true,
                normalization: Normalization? = nil, chirality: ChiralityHandling = .ignore) {
        self.windowLength = windowLength
        self.jointCount = jointCount
        self.includesDepth = includesDepth
        self.includesVelocity = includesVelocity
        self.normalization = normalization ?? ActionInputEncoding.defaultNormalization(jointCount: jointCount)
        self.chirality = chirality
    }

    private enum CodingKeys: String, CodingKey {
        case windowLength, jointCount, includesDepth, includesVelocity, normalization, chirality
    }

    /// Decodes an encoding; `chirality` defaults to `.ignore` (files written before it existed).
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        windowLength = try container.decode(Int.self, forKey: .windowLength)
        jointCount = try container.decode(Int.self, forKey: .jointCount)
        includesDepth = try container.decode(Bool.self, forKey: .includesDepth)
        includesVelocity = try container.decode(Bool.self, forKey: .includesVelocity)
        normalization = try container.decode(Normalization.self, forKey: .normalization)
        chirality = try container.decodeIfPresent(ChiralityHandling.self, forKey: .chirality) ?? .ignore
    }

    /// Size normalisation for two or more joints; centring only for a single joint.
    public static func defaultNormalization(jointCount: Int) -> Normalization {
        jointCount >= 2 ? .centreAndSpread : .centre
    }

    /// The raw keypoint channels a window must provide, in order (`x`, `y`, [`z`,] `confidence`).
    public var keypointChannels: [String] { includesDepth ? ["x", "y", "z", "confidence"] : ["x", "y", "confidence"] }

    /// The position channels per joint (2, or 3 with depth).
    public var positionCount: Int { includesDepth ? 3 : 2 }

    /// The encoded channels K, in tensor order.
    public var channelNames: [String] {
        keypointChannels + (includesVelocity ? (includesDepth ? ["dx", "dy", "dz"] : ["dx", "dy"]) : [])
            + chirality.channelNames
    }

    /// The number of encoded channels K.
    public var channelCount: Int { channelNames.count }

    /// The input tensor shape for `count` windows: [N, T, J, K].
    public func shape(count: Int) -> [Int] { [count, windowLength, jointCount, channelCount] }

    /// Encodes `windows` (each `windowLength` × `jointCount`) as [N, T, J, K].
    public func encode(_ windows: [PoseWindow]) -> Tensor {
        let perWindow = windowLength * jointCount * channelCount
        for window in windows {
            precondition(window.frameCount == windowLength && window.jointCount == jointCount,
                         "window \(window.frameCount)×\(window.jointCount) does not fit the encoding \(windowLength)×\(jointCount)")
        }
        return Tensor(shape: shape(count: windows.count)) { out in
            for (n, window) in windows.enumerated() {
                encode(window, into: UnsafeMutableBufferPointer(rebasing: out[(n * perWindow)..<((n + 1) * perWindow)]))
            }
        }
    }

    /// The centre and divisor `window` is normalised with.
    public func normalizer(for window: PoseWindow) -> (centre: (x: Float, y: Float, z: Float), scale: Float) {
        let centre = window.centroid
        var scale: Float = 1
        switch normalization {
        case .centreAndSpread: scale = window.spread
        case .centreAndExtent: scale = window.extent
        case .centre: scale = 1
        }
        if !(scale > 1e-12) || !scale.isFinite { scale = 1 }
        return (centre, scale)
    }

    /// Writes one window's [T, J, K] values into `out`.
    func encode(_ window: PoseWindow, into out: UnsafeMutableBufferPointer<Float>) {
        let (centre, scale) = normalizer(for: window)
        let inverse = 1 / scale
        let k = channelCount, j = jointCount, hasDepth = includesDepth
        let depth = hasDepth ? window.z : nil
        let confidenceChannel = hasDepth ? 3 : 2
        let sign = chirality.horizontalSign(for: window.chirality)
        let hand = chirality.channelValues(for: window.chirality)
        let handChannel = confidenceChannel + 1 + (includesVelocity ? (hasDepth ? 3 : 2) : 0)
        for i in 0..<out.count { out[i] = 0 }
        for t in 0..<windowLength {
            for joint in 0..<j {
                let source = t * j + joint
                guard window.confidence[source] > 0 else { continue }
                let base = source * k
                let x = sign * (window.x[source] - centre.x) * inverse
                let y = (window.y[source] - centre.y) * inverse
                out[base] = x
                out[base + 1] = y
                if hasDepth { out[base + 2] = ((depth?[source] ?? 0) - centre.z) * inverse }
                out[base + confidenceChannel] = window.confidence[source]
                if chirality == .input {
                    out[base + handChannel] = hand.left
                    out[base + handChannel + 1] = hand.right
                }
                if includesVelocity, t > 0, window.confidence[source - j] > 0 {
                    let previous = base - j * k
                    let velocity = confidenceChannel + 1
                    out[base + velocity] = x - out[previous]
                    out[base + velocity + 1] = y - out[previous + 1]
                    if hasDepth { out[base + velocity + 2] = out[base + 2] - out[previous + 2] }
                }
            }
        }
    }
}
