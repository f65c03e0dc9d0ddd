import CoachData
import Foundation

/// What a hand-pose dataset holds, as the trainer sees it: classes with their poses and hands,
/// the background class, the joints and channels — the report `coach train hand-pose-classifier`
/// prints before training.
public struct SinglePoseSetSummary: Codable, Equatable, Sendable {
    /// One class's counts.
    public struct ClassSummary: Codable, Equatable, Sendable {
        /// The label.
        public var label: String
        /// Poses of this class.
        public var poses: Int
        /// Of them, left hands.
        public var leftHands: Int
        /// Of them, right hands.
        public var rightHands: Int
        /// Of them, poses whose hand is unknown (no chirality given).
        public var unknownHands: Int
    }

    /// `hand21` or `custom(…)`.
    public var jointSet: String
    /// The joint names in order.
    public var jointNames: [String]
    /// Whether poses carry z.
    public var hasDepth: Bool
    /// Whether any keypoint has a confidence other than 1 (a confidence column).
    public var hasConfidence: Bool
    /// Poses in all classes.
    public var poseCount: Int
    /// Keypoints not detected (empty cells or confidence 0), over all poses.
    public var undetectedKeypoints: Int
    /// Poses with no detected keypoint at all (they carry no information).
    public var emptyPoses: Int
    /// Per-class counts, classes sorted.
    public var classes: [ClassSummary]
    /// The class treated as background (`other`, `none`, `background`, `negative`), if any.
    public var backgroundLabel: String?
    /// Things the user should know (no background class, tiny classes, a body joint set).
    public var warnings: [String]

    /// Summarises `set`'s poses (or those at `poseIndices`).
    public init(set: SinglePoseSet, poseIndices: [Int]? = nil) {
        let poses = (poseIndices ?? Array(set.poses.indices)).map { set.poses[$0] }
        jointSet = set.jointSet.description
        jointNames = set.jointSet.names
        hasDepth = set.hasDepth
        hasConfidence = poses.contains { $0.keypoints.contains { $0.map { $0.confidence != 1 } ?? false } }
        poseCount = poses.count
        undetectedKeypoints = poses.reduce(0) { $0 + $1.keypoints.filter { $0 == nil }.count }
        emptyPoses = poses.filter { !$0.hasDetectedJoint }.count
        var byLabel: [String: ClassSummary] = [:]
        for pose in poses {
            var entry = byLabel[pose.label] ?? ClassSummary(label: pose.label, poses: 0, leftHands: 0, rightHands: 0, unknownHands: 0)
            entry.poses += 1
            switch pose.chirality {
            case .left?: entry.leftHands += 1
            case .right?: entry.rightHands += 1
            default: entry.unknownHands += 1
            }
            byLabel[pose.label] = entry
        }
        classes = byLabel.values.sorted { $0.label < $1.label }
        let candidates = PoseClasses.backgroundCandidates(among: poses.map(\.label))
        backgroundLabel = candidates.first

        var warnings: [String] = []
        if candidates.isEmpty {
            warnings.append("no background class: add a class named 'background' (or 'other', 'none', 'negative') of hand shapes that are none of your poses, or the classifier will call every hand one of them")
        } else if candidates.count > 1 {
            warnings.append("several classes look like background (\(candidates.joined(separator: ", "))); '\(candidates[0])' is treated as the background class")
        }
        for entry in classes where entry.poses < 10 {
            warnings.append("class '\(entry.label)' has only \(entry.poses) pose\(entry.poses == 1 ? "" : "s"); add more for a reliable classifier")
        }
        if emptyPoses > 0 && emptyPoses < poses.count {
            warnings.append("\(emptyPoses) of the \(poses.count) poses have no detected joint (every keypoint empty or of confidence 0); they teach nothing but their label's frequency")
        }
        if set.jointSet.kind == .body18 {
            warnings.append("these are body poses (body18), not hand poses; the classifier will still treat each row as one pose")
        }
        self.warnings = warnings
    }
}
