/// A fixed-length window of poses: T frames × J joints of x, y, [z,] confidence, the unit an
/// action classifier sees (plain Swift values; models encode it as a tensor).
///
/// Values are stored frame-major in flat arrays (element `t · J + j`). A joint that was not
/// detected has confidence 0 and coordinates 0, and so do the padding frames appended when the
/// source was shorter than the window — the zero poses the Action & Vision app pads with.
public struct PoseWindow: Hashable, Sendable {
    /// Frames in the window (T).
    public let frameCount: Int
    /// Joints per frame (J).
    public let jointCount: Int
    /// Horizontal positions, T·J values.
    public var x: [Float]
    /// Vertical positions (top-left origin), T·J values.
    public var y: [Float]
    /// Depths, T·J values, when the poses have z.
    public var z: [Float]?
    /// Detection confidences, T·J values; 0 means not detected.
    public var confidence: [Float]
    /// The time of the first frame, in seconds.
    public var startTime: Double
    /// Frames per second of the window.
    public var frameRate: Double
    /// How many frames at the end are padding (the source ran out before the window was full).
    public var paddedFrameCount: Int
    /// The hand, for hand windows that say.
    public var chirality: Chirality?

    /// An empty window (every joint undetected) of `frameCount` frames of `jointCount` joints.
    public init(frameCount: Int, jointCount: Int, hasDepth: Bool = false, startTime: Double = 0,
                frameRate: Double = 30, chirality: Chirality? = nil) {
        precondition(frameCount > 0 && jointCount > 0, "a pose window needs at least one frame and one joint")
        self.frameCount = frameCount
        self.jointCount = jointCount
        let count = frameCount * jointCount
        x = [Float](repeating: 0, count: count)
        y = [Float](repeating: 0, count: count)
        z = hasDepth ? [Float](repeating: 0, count: count) : nil
        confidence = [Float](repeating: 0, count: count)
        self.startTime = startTime
        self.frameRate = frameRate
        paddedFrameCount = 0
        self.chirality = chirality
    }

    /// A window of `frameCount` frames filled from `frames` (each with `jointCount` keypoints);
    /// when there are fewer frames than `frameCount`, zero poses are appended and counted in
    /// `paddedFrameCount`; extra frames are ignored.
    public init(frames: ArraySlice<PoseFrame>, frameCount: Int, jointCount: Int, hasDepth: Bool,
                frameRate: Double, chirality: Chirality? = nil) {
        self.init(frameCount: frameCount, jointCount: jointCount, hasDepth: hasDepth,
                  startTime: frames.first?.time ?? 0, frameRate: frameRate, chirality: chirality)
        var t = 0
        for frame in frames.prefix(frameCount) {
            for (j, keypoint) in frame.keypoints.prefix(jointCount).enumerated() {
                self[t, j] = keypoint
            }
            t += 1
        }
        paddedFrameCount = frameCount - t
    }

    /// Whether the poses carry z.
    public var hasDepth: Bool { z != nil }

    /// The frames that hold poses rather than padding.
    public var observedFrameCount: Int { frameCount - paddedFrameCount }

    /// The end of the observed frames: `startTime` plus one frame interval per observed frame.
    public var endTime: Double { startTime + Double(observedFrameCount) / frameRate }

    /// The keypoint of joint `joint` in frame `frame`, or nil when it was not detected.
    public subscript(frame: Int, joint: Int) -> Keypoint? {
        get {
            let i = frame * jointCount + joint
            guard confidence[i] > 0 else { return nil }
            return Keypoint(x: x[i], y: y[i], z: z?[i], confidence: confidence[i])
        }
        set {
            let i = frame * jointCount + joint
            if let keypoint = newValue, keypoint.confidence > 0, keypoint.x.isFinite, keypoint.y.isFinite {
                x[i] = keypoint.x
                y[i] = keypoint.y
                if z != nil { z![i] = keypoint.z ?? 0 }
                confidence[i] = keypoint.confidence
            } else {
                x[i] = 0
                y[i] = 0
                if z != nil { z![i] = 0 }
                confidence[i] = 0
            }
        }
    }

    /// Whether joint `joint` was detected in frame `frame`.
    public func isDetected(frame: Int, joint: Int) -> Bool { confidence[frame * jointCount + joint] > 0 }

    /// How many keypoints in the window were detected.
    public var detectedCount: Int { confidence.reduce(0) { $0 + ($1 > 0 ? 1 : 0) } }

    /// The mean position of every detected keypoint in the window (0 when none was detected).
    public var centroid: (x: Float, y: Float, z: Float) {
        var sx: Double = 0, sy: Double = 0, sz: Double = 0, n: Double = 0
        for i in confidence.indices where confidence[i] > 0 {
            sx += Double(x[i]); sy += Double(y[i]); sz += Double(z?[i] ?? 0); n += 1
        }
        guard n > 0 else { return (0, 0, 0) }
        return (Float(sx / n), Float(sy / n), Float(sz / n))
    }

    /// The pose's size: the root-mean-square distance (in x, y and z) of the detected keypoints of
    /// each frame from that frame's own mean, averaged over frames with at least two detected
    /// joints. It measures the body (or hand), not its motion; 0 when no frame has two joints.
    public var spread: Float {
        var total: Double = 0, frames = 0
        for t in 0..<frameCount {
            var sx: Double = 0, sy: Double = 0, sz: Double = 0, n: Double = 0
            for j in 0..<jointCount where confidence[t * jointCount + j] > 0 {
                let i = t * jointCount + j
                sx += Double(x[i]); sy += Double(y[i]); sz += Double(z?[i] ?? 0); n += 1
            }
            guard n >= 2 else { continue }
            let mx = sx / n, my = sy / n, mz = sz / n
            var squares: Double = 0
            for j in 0..<jointCount where confidence[t * jointCount + j] > 0 {
                let i = t * jointCount + j
                let dx = Double(x[i]) - mx, dy = Double(y[i]) - my, dz = Double(z?[i] ?? 0) - mz
                squares += dx * dx + dy * dy + dz * dz
            }
            total += (squares / n).squareRoot()
            frames += 1
        }
        return frames == 0 ? 0 : Float(total / Double(frames))
    }

    /// The root-mean-square distance of every detected keypoint from `centroid` (the extent of
    /// the poses and their motion over the window); 0 when nothing was detected.
    public var extent: Float {
        let c = centroid
        var squares: Double = 0, n: Double = 0
        for i in confidence.indices where confidence[i] > 0 {
            let dx = Double(x[i] - c.x), dy = Double(y[i] - c.y), dz = Double((z?[i] ?? 0) - c.z)
            squares += dx * dx + dy * dy + dz * dz
            n += 1
        }
        return n == 0 ? 0 : Float((squares / n).squareRoot())
    }
}
