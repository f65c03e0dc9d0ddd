import CoachData

/// What an action-classifier model file records about its network and input encoding, beside
/// the generic metadata (stored as `extra.actionClassifier`).
public struct ActionClassifierSpecification: Codable, Equatable, Hashable, Sendable {
    /// The metadata `extra` key it is stored under.
    public static let metadataKey = "actionClassifier"

    /// The network's shape.
    public var architecture: ActionClassifierArchitecture
    /// How windows become the network's input.
    public var encoding: ActionInputEncoding
    /// The joint layout the model was trained on (`body18`, `hand21` or `custom`).
    public var jointSetKind: JointSet.Kind
    /// The class treated as background during training, if any.
    public var backgroundLabel: String?
    /// Features of the random-convolution head whose probabilities are averaged with the
    /// network's (nil: the network alone; files written before the ensemble have none).
    public var randomConvolutionFeatures: Int?
    /// The head's share of the averaged probabilities (nil: 0.5).
    public var randomConvolutionWeight: Float?
    /// Whether the head fills each joint's undetected frames before its transform (nil: no, as
    /// in files written before it did).
    public var randomConvolutionFillsGaps: Bool?
    /// Each joint's mean normalised height in the training windows (see
    /// `ActionClassifierModel.orientationAgreement`); nil in files written before it existed.
    public var referenceJointHeights: [Float]?
    /// The ensemble's further members (`ActionClassifierModel.additionalMembers`), each a network
    /// and head of its own over the same encoding; their tensors carry the prefix
    /// `member<i>.` (i from 2). Nil in files of a single member.
    public var additionalMembers: [ActionClassifierSpecification]?

    /// A specification of `architecture` over `encoding`.
    public init(architecture: ActionClassifierArchitecture, encoding: ActionInputEncoding, jointSetKind: JointSet.Kind,
                backgroundLabel: String? = nil, randomConvolutionFeatures: Int? = nil, randomConvolutionWeight: Float? = nil,
                randomConvolutionFillsGaps: Bool? = nil, referenceJointHeights: [Float]? = nil) {
        self.architecture = architecture
        self.encoding = encoding
        self.jointSetKind = jointSetKind
        self.backgroundLabel = backgroundLabel
        self.randomConvolutionFeatures = randomConvolutionFeatures
        self.randomConvolutionWeight = randomConvolutionWeight
        self.randomConvolutionFillsGaps = randomConvolutionFillsGaps
        self.referenceJointHeights = referenceJointHeights
    }
}
