/// A clip: frames of poses over time for one joint set (plain Swift values, no tensors).
public struct PoseSequence: Hashable, Sendable {
    /// The joints every frame has one entry for, in order.
    public var jointSet: JointSet
    /// The frames in increasing time.
    public var frames: [PoseFrame]
    /// The file (and table sequence) this clip was read from.
    public var source: PoseSource
    /// The hand, for hand clips that say (`chirality` column or JSON field); nil when not given.
    public var chirality: Chirality?
    /// Whether keypoints carry z.
    public var hasDepth: Bool
    /// The frame rate the file declared or that was assumed for it (JSON `frameRate`, or the
    /// reading option when the file has no time); nil when times came from the file.
    public var nominalFrameRate: Double?

    /// A clip of `frames` for `jointSet` read from `source`.
    public init(jointSet: JointSet, frames: [PoseFrame], source: PoseSource, chirality: Chirality? = nil,
                hasDepth: Bool = false, nominalFrameRate: Double? = nil) {
        self.jointSet = jointSet
        self.frames = frames
        self.source = source
        self.chirality = chirality
        self.hasDepth = hasDepth
        self.nominalFrameRate = nominalFrameRate
    }

    /// The time of the first frame (0 for an empty clip).
    public var startTime: Double { frames.first?.time ?? 0 }

    /// The typical time between frames: 1 / the nominal rate, or the median step between frames;
    /// nil for a clip of fewer than two frames without a nominal rate.
    public var frameInterval: Double? {
        if let rate = nominalFrameRate, rate > 0 { return 1 / rate }
        guard frames.count > 1 else { return nil }
        var steps = (1..<frames.count).map { frames[$0].time - frames[$0 - 1].time }
        steps.sort()
        return steps[steps.count / 2]
    }

    /// When the clip ends: the last frame's time plus one frame interval (the last frame lasts one frame).
    public var endTime: Double {
        guard let last = frames.last else { return 0 }
        return last.time + (frameInterval ?? 0)
    }

    /// The clip's length in seconds (`endTime − startTime`).
    public var duration: Double { endTime - startTime }

    /// The frames with `start ≤ time < end` (a nil bound is open); the same clip otherwise.
    public func trimmed(from start: Double?, to end: Double?) -> PoseSequence {
        let tolerance = 1e-9
        var copy = self
        copy.frames = frames.filter { frame in
            (start.map { frame.time >= $0 - tolerance } ?? true) && (end.map { frame.time < $0 - tolerance } ?? true)
        }
        return copy
    }

    /// The same clip with its joints in `target`'s order, or nil when the two sets' names differ.
    /// Joints `target` lacks may be left out when no frame detects them: a clip read as body18 from
    /// a file without eye and ear columns still fits a model trained on those columns' joints alone.
    public func reordered(to target: JointSet) -> PoseSequence? {
        let sourceIndices = target.names.compactMap { jointSet.index(of: $0) }
        guard sourceIndices.count == target.count else { return nil }
        if target.count < jointSet.count {
            let kept = Set(sourceIndices)
            let extra = jointSet.names.indices.filter { !kept.contains($0) }
            guard frames.allSatisfy({ frame in extra.allSatisfy { frame.keypoints[$0] == nil } }) else { return nil }
        }
        if target.names == jointSet.names { var copy = self; copy.jointSet = target; return copy }
        var copy = self
        copy.jointSet = target
        copy.frames = frames.map { frame in
            PoseFrame(time: frame.time, keypoints: sourceIndices.map { frame.keypoints[$0] })
        }
        return copy
    }
}

extension PoseSequence {
    /// Of the keypoints `sequences` could have — every frame of every joint detected in at least
    /// one frame of any of them — the share that is not detected (0 when the detector never
    /// misses; joints never detected anywhere do not count, as the data simply lacks them).
    public static func missedShare(of sequences: [PoseSequence]) -> Double {
        let jointCount = sequences.map { $0.frames.map(\.keypoints.count).max() ?? 0 }.max() ?? 0
        var present = [Bool](repeating: false, count: jointCount)
        var detections = [Int](repeating: 0, count: jointCount)
        var frames = 0
        for sequence in sequences {
            frames += sequence.frames.count
            for frame in sequence.frames {
                for (joint, keypoint) in frame.keypoints.enumerated() {
                    guard let keypoint, keypoint.confidence > 0 else { continue }
                    present[joint] = true
                    detections[joint] += 1
                }
            }
        }
        let joints = present.indices.filter { present[$0] }
        guard !joints.isEmpty, frames > 0 else { return 0 }
        let detected = joints.reduce(0) { $0 + detections[$1] }
        return 1 - Double(detected) / Double(frames * joints.count)
    }
}
