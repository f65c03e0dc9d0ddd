/// An action with its start and end inside a clip, in seconds.
public struct SyntheticActionSpan: Equatable, Sendable {
    /// What happens.
    public var action: SyntheticAction
    /// Seconds from the start of the clip.
    public var start: Double
    /// Seconds from the start of the clip.
    public var end: Double

    /// A span of `action` from `start` to `end`.
    public init(action: SyntheticAction, start: Double, end: Double) {
        self.action = action
        self.start = start
        self.end = end
    }
}

/// A labeled stretch of a clip, as written to a Create ML action annotation file
/// (FORMATS.md §3.6: `file,label,start,end`).
public struct SyntheticSegment: Equatable, Sendable {
    /// The class label (`overhand`, …, or the background label).
    public var label: String
    /// Seconds from the start of the clip.
    public var start: Double
    /// Seconds from the start of the clip.
    public var end: Double

    /// A segment labeled `label` from `start` to `end`.
    public init(label: String, start: Double, end: Double) {
        self.label = label
        self.start = start
        self.end = end
    }
}

/// A rendered synthetic clip: what a pose detector would have reported for every frame,
/// the noise-free truth behind it, and the labels.
public struct SyntheticClip: Equatable, Sendable {
    /// The plan it was rendered from.
    public var plan: ThrowClipPlan
    /// Frames per second of the simulated video.
    public var frameRate: Double
    /// Joint names, in keypoint order (`SyntheticJointNames.body18`).
    public var jointNames: [String]
    /// The observed frames: noisy, with missed joints as `nil`; dropped frames are absent,
    /// so times may skip.
    public var frames: [SyntheticPoseFrame]
    /// Noise-free image positions (x, y normalised, origin top-left) of every joint in every
    /// video frame, dropped frames and missed joints included; frame k is at time k / frameRate.
    public var truePositions: [[SIMD2<Float>]]
    /// Every action in order.
    public var actions: [SyntheticActionSpan]
    /// The annotation segments: each throw with its label, background stretches merged and
    /// labeled with the background label.
    public var segments: [SyntheticSegment]
    /// The clip's class: its throw's label, or the background label.
    public var label: String

    /// The clip's length in seconds.
    public var duration: Double { plan.duration }
}
