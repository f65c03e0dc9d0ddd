import CoachData
import CoachNN
import Foundation

/// A trained (or freshly initialised) hand-pose classifier: labels, joint set, input encoding
/// and network — everything needed to turn single hand poses into class probabilities.
///
/// Training, evaluation and `CoachRuntime.HandPoseClassifier` all go through
/// `probabilities(for:)` / `logits(for:tape:)`, so poses are always encoded the same way. Poses
/// are one-frame `PoseWindow`s (`PoseWindow(keypoints:hasDepth:chirality:)`).
public final class HandPoseClassifierModel: PoseClassifierModel {
    /// The task of its model files.
    public static let task = ModelTask.handPoseClassifier
    /// Where its model files keep the specification under `extra`.
    public static let specificationKey = HandPoseClassifierSpecification.metadataKey
    /// What it is, for messages.
    public static let kindDescription = "a hand-pose classifier"

    /// Class labels in output order.
    public let labels: [String]
    /// The joints the model expects, in tensor order.
    public let jointSet: JointSet
    /// How poses become the network's input.
    public let encoding: HandPoseInputEncoding
    /// The network's shape.
    public let architecture: HandPoseClassifierArchitecture
    /// The class treated as background during training, if any.
    public let backgroundLabel: String?
    /// The network.
    public let network: HandPoseClassifierNetwork

    /// A freshly initialised model for `labels` over `jointSet`.
    public init(labels: [String], jointSet: JointSet, encoding: HandPoseInputEncoding,
                architecture: HandPoseClassifierArchitecture, backgroundLabel: String? = nil,
                generator: inout SeededGenerator) {
        precondition(encoding.jointCount == jointSet.count, "the encoding's joints must match the joint set")
        self.labels = labels
        self.jointSet = jointSet
        self.encoding = encoding
        self.architecture = architecture
        self.backgroundLabel = backgroundLabel
        network = HandPoseClassifierNetwork(architecture: architecture, skeleton: SkeletonGraph(jointSet: jointSet),
                                            inputChannels: encoding.channelCount, classCount: labels.count,
                                            generator: &generator)
    }

    /// The specification stored in the model file.
    public var specification: HandPoseClassifierSpecification {
        HandPoseClassifierSpecification(architecture: architecture, encoding: encoding, jointSetKind: jointSet.kind,
                                        backgroundLabel: backgroundLabel)
    }

    /// The model's input description for the model file (a single pose: no window or frame rate).
    public var inputSpecification: InputSpecification {
        InputSpecification(pose: PoseInputSpecification(jointNames: jointSet.names, keypointOrigin: .topLeft,
                                                        keypointChannels: encoding.keypointChannels))
    }

    // MARK: - Poses

    /// `keypoints` given in `source`'s joint order as a one-frame window in the model's joint
    /// order, z dropped when the model does not use it.
    /// - Throws: `ActionClassifierError.jointsDoNotMatch` when the joint names differ,
    ///   `.depthMissing` when the model needs z the pose lacks (`sourceName` names the pose).
    public func pose(_ keypoints: [Keypoint?], jointSet source: JointSet, hasDepth: Bool, chirality: Chirality?,
                     sourceName: String) throws -> PoseWindow {
        let indices = jointSet.names.map { source.index(of: $0) }
        guard source.count == jointSet.count, !indices.contains(where: { $0 == nil }) else {
            let given = Set(source.names), expected = Set(jointSet.names)
            throw ActionClassifierError.jointsDoNotMatch(source: sourceName, missing: jointSet.names.filter { !given.contains($0) },
                                                         unknown: source.names.filter { !expected.contains($0) })
        }
        if encoding.includesDepth && !hasDepth { throw ActionClassifierError.depthMissing(source: sourceName) }
        let ordered = indices.map { index -> Keypoint? in
            guard let index, index < keypoints.count, var point = keypoints[index] else { return nil }
            if !encoding.includesDepth { point.z = nil }
            return point
        }
        return PoseWindow(keypoints: ordered, hasDepth: encoding.includesDepth, chirality: chirality)
    }

    /// The poses of `set` as one-frame windows in the model's joint order (see `pose(_:jointSet:hasDepth:chirality:sourceName:)`).
    public func poses(of set: SinglePoseSet) throws -> [PoseWindow] {
        try set.poses.map { pose in
            try self.pose(pose.keypoints, jointSet: set.jointSet, hasDepth: set.hasDepth, chirality: pose.chirality,
                          sourceName: pose.source.description)
        }
    }

    // MARK: - Prediction

    /// Logits [N, classes] for one-frame `poses` on `tape` (training or inference mode).
    public func logits(for poses: [PoseWindow], tape: Tape) -> Variable {
        network(tape.constant(encoding.encode(poses)))
    }

    /// Class probabilities for each one-frame pose (inference mode), in `labels` order;
    /// `batchSize` poses are run together.
    public func probabilities(for poses: [PoseWindow], batchSize: Int = 256) -> [[Float]] {
        batchedProbabilities(for: poses, batchSize: batchSize)
    }

    // MARK: - Model files

    /// Rebuilds a model from a model file, checking task, input, specification and every weight's
    /// name and shape. Throws `ModelFileError` naming the file and the JSON path or tensor at fault.
    public convenience init(file: ModelFile) throws {
        let header = try PoseModelFileHeader<HandPoseClassifierModel>(file)
        let (pose, jointSet, specification) = (header.pose, header.jointSet, header.specification)
        let encoding = specification.encoding
        guard encoding.jointCount == jointSet.count, encoding.keypointChannels == pose.keypointChannels,
              encoding.anchorJoint.map({ $0 >= 0 && $0 < jointSet.count }) ?? true,
              encoding.palmJoints.allSatisfy({ $0 >= 0 && $0 < jointSet.count }) else {
            throw header.specificationProblem("encoding",
                          "\(encoding.jointCount) joints with channels \(encoding.keypointChannels) do not match the input (\(jointSet.count) joints, \(pose.keypointChannels))")
        }
        let architecture = specification.architecture
        guard !architecture.hiddenSizes.isEmpty, architecture.hiddenSizes.allSatisfy({ $0 > 0 }),
              architecture.dropout >= 0, architecture.dropout < 1 else {
            throw header.specificationProblem("architecture", "not a valid network shape (hidden sizes must be positive, dropout in 0..<1)")
        }
        var generator = SeededGenerator(seed: 0)
        self.init(labels: file.metadata.classLabels, jointSet: jointSet, encoding: encoding, architecture: architecture,
                  backgroundLabel: specification.backgroundLabel, generator: &generator)
        try loadWeights(from: file)
    }

    /// Reads a model file and rebuilds the model (see `init(file:)`).
    public convenience init(contentsOf url: URL) throws {
        try self.init(file: try ModelFile.read(from: url))
    }
}
