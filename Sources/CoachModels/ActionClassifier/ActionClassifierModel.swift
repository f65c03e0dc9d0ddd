import CoachData
import CoachNN
import Foundation

/// A trained (or freshly initialised) action classifier: labels, joint set, window, input
/// encoding and network — everything needed to turn pose windows into class probabilities.
///
/// Training, evaluation and `CoachRuntime.ActionClassifier` all go through
/// `probabilities(for:)` / `logits(for:tape:)`, so windows are always encoded the same way.
public final class ActionClassifierModel: PoseClassifierModel {
    /// The task of its model files.
    public static let task = ModelTask.actionClassifier
    /// Where its model files keep the specification under `extra`.
    public static let specificationKey = ActionClassifierSpecification.metadataKey
    /// What it is, for messages.
    public static let kindDescription = "an action classifier"

    /// Class labels in output order.
    public let labels: [String]
    /// The joints the model expects, in tensor order.
    public let jointSet: JointSet
    /// Frames per second windows are sampled at.
    public let frameRate: Double
    /// How windows become the network's input.
    public let encoding: ActionInputEncoding
    /// The network's shape.
    public let architecture: ActionClassifierArchitecture
    /// The class treated as background during training, if any.
    public let backgroundLabel: String?
    /// The network.
    public let network: ActionClassifierNetwork

    /// A freshly initialised model for `labels` over `jointSet`.
    public init(labels: [String], jointSet: JointSet, frameRate: Double, encoding: ActionInputEncoding,
                architecture: ActionClassifierArchitecture, backgroundLabel: String? = nil,
                generator: inout SeededGenerator) {
        precondition(encoding.jointCount == jointSet.count, "the encoding's joints must match the joint set")
        self.labels = labels
        self.jointSet = jointSet
        self.frameRate = frameRate
        self.encoding = encoding
        self.architecture = architecture
        self.backgroundLabel = backgroundLabel
        network = ActionClassifierNetwork(architecture: architecture, graph: SkeletonGraph(jointSet: jointSet),
                                          inputChannels: encoding.channelCount, classCount: labels.count,
                                          generator: &generator)
    }

    /// Frames per window (T).
    public var windowLength: Int { encoding.windowLength }

    /// A sampler cutting windows the way this model expects them.
    public var windowSampler: PoseWindowSampler { PoseWindowSampler(windowLength: windowLength, frameRate: frameRate) }

    /// The specification stored in the model file.
    public var specification: ActionClassifierSpecification {
        ActionClassifierSpecification(architecture: architecture, encoding: encoding, jointSetKind: jointSet.kind,
                                      backgroundLabel: backgroundLabel)
    }

    /// The model's input description for the model file.
    public var inputSpecification: InputSpecification {
        InputSpecification(pose: PoseInputSpecification(windowLength: windowLength, frameRate: frameRate,
                                                        jointNames: jointSet.names, keypointOrigin: .topLeft,
                                                        keypointChannels: encoding.keypointChannels))
    }

    // MARK: - Prediction

    /// Logits [N, classes] for `windows` on `tape` (training or inference mode).
    public func logits(for windows: [PoseWindow], tape: Tape) -> Variable {
        network(tape.constant(encoding.encode(windows)))
    }

    /// Class probabilities for each window (inference mode), in `labels` order; `batchSize`
    /// windows are run together.
    public func probabilities(for windows: [PoseWindow], batchSize: Int = 64) -> [[Float]] {
        batchedProbabilities(for: windows, batchSize: batchSize)
    }

    // MARK: - Model files

    /// Rebuilds a model from a model file, checking task, input, specification and every weight's
    /// name and shape. Throws `ModelFileError` naming the file and the JSON path or tensor at fault.
    public convenience init(file: ModelFile) throws {
        let header = try PoseModelFileHeader<ActionClassifierModel>(file)
        let (pose, jointSet, specification) = (header.pose, header.jointSet, header.specification)
        guard let windowLength = pose.windowLength, windowLength > 0 else {
            throw header.problem("$.input.pose.windowLength", "expected a positive number of frames")
        }
        guard let frameRate = pose.frameRate, frameRate > 0, frameRate.isFinite else {
            throw header.problem("$.input.pose.frameRate", "expected a positive frame rate")
        }
        let encoding = specification.encoding
        guard encoding.windowLength == windowLength, encoding.jointCount == jointSet.count,
              encoding.keypointChannels == pose.keypointChannels else {
            throw header.specificationProblem("encoding",
                          "window \(encoding.windowLength)×\(encoding.jointCount) with channels \(encoding.keypointChannels) does not match the input (\(windowLength)×\(jointSet.count), \(pose.keypointChannels))")
        }
        let architecture = specification.architecture
        guard !architecture.channels.isEmpty, architecture.channels.count == architecture.strides.count,
              architecture.channels.allSatisfy({ $0 > 0 }), architecture.strides.allSatisfy({ $0 > 0 }),
              architecture.temporalKernelSize > 0, architecture.dropout >= 0, architecture.dropout < 1,
              architecture.kind != .graphConvolution || architecture.partitionCount == SkeletonGraph(jointSet: jointSet).partitionCount
        else {
            throw header.specificationProblem("architecture",
                          "not a valid network shape for \(jointSet.count) joints")
        }
        var generator = SeededGenerator(seed: 0)
        self.init(labels: file.metadata.classLabels, jointSet: jointSet, frameRate: frameRate, encoding: encoding,
                  architecture: architecture, backgroundLabel: specification.backgroundLabel, generator: &generator)
        try loadWeights(from: file)
    }

    /// Reads a model file and rebuilds the model (see `init(file:)`).
    public convenience init(contentsOf url: URL) throws {
        try self.init(file: try ModelFile.read(from: url))
    }
}
