import CoachData

/// A rendered clip of the throw dataset: what the simulated pose detector reported for every
/// frame, the truth behind it, and the labels.
public struct GeneratedClip: Sendable {
    /// What the clip shows.
    public enum Source: Equatable, Sendable {
        /// A scripted session of a generated person (throwing or not).
        case scripted(performer: Int)
        /// A real motion-capture trial (its name), seen through a virtual camera.
        case motionCapture(trial: String)
    }

    /// The file name without extension (`clip-0001`).
    public var name: String
    /// Where the motion comes from.
    public var source: Source
    /// Frames per second of the simulated video.
    public var frameRate: Double
    /// Joint names, in keypoint order (body18).
    public var jointNames: [String] = SyntheticJointNames.body18
    /// The observed frames: noisy, with missed joints as `nil`; dropped frames are absent.
    public var frames: [SyntheticPoseFrame]
    /// The body in 3-D at every video frame (frame k at time k / frameRate).
    public var bodies: [Body3D]
    /// The joint angles at every video frame (empty for motion capture).
    public var poses: [BodyPose]
    /// Noise-free image positions (normalised, origin top-left) of every joint in every video frame.
    public var truePositions: [[SIMD2<Float>]]
    /// The camera that filmed it.
    public var camera: VirtualCamera
    /// The annotation segments (each throw with its label; background with the background label).
    public var segments: [PoseSegment]
    /// The clip's class: its throw's label, or the background label.
    public var label: String
    /// The throw in the clip, if any, with its phases in clip time.
    public var throwPerformance: ThrowPerformance?
    /// When the throw's script starts in clip time (add to the performance's times).
    public var throwOffset: Double
    /// Whether the person is left-handed (their motions are mirrored).
    public var isLeftHanded: Bool
    /// The scripted activities in order (empty for motion capture).
    public var activities: [String]
    /// Whether the clip is written as JSON.
    public var writesJSON: Bool
    /// Whether missed joints are written as empty cells (otherwise zeros with confidence 0).
    public var writesMissingJointsAsEmptyCells: Bool

    /// The file name (`clip-0001.csv` or `.json`).
    public var fileName: String { name + (writesJSON ? ".json" : ".csv") }
    /// The clip's length in seconds.
    public var duration: Double { Double(max(bodies.count - 1, 0)) / frameRate }
    /// When the bag leaves the hand, in clip time.
    public var releaseTime: Double? { throwPerformance.map { $0.release + throwOffset } }
}
