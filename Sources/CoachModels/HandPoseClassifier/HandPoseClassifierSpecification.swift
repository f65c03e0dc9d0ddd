import CoachData

/// What a hand-pose classifier's model file records about its network and input encoding,
/// beside the generic metadata (stored as `extra.handPoseClassifier`).
public struct HandPoseClassifierSpecification: Codable, Equatable, Hashable, Sendable {
    /// The metadata `extra` key it is stored under.
    public static let metadataKey = "handPoseClassifier"

    /// The network's shape.
    public var architecture: HandPoseClassifierArchitecture
    /// How poses become the network's input.
    public var encoding: HandPoseInputEncoding
    /// The joint layout the model was trained on (`hand21` or `custom`).
    public var jointSetKind: JointSet.Kind
    /// The class treated as background during training, if any.
    public var backgroundLabel: String?

    /// A specification of `architecture` over `encoding`.
    public init(architecture: HandPoseClassifierArchitecture, encoding: HandPoseInputEncoding, jointSetKind: JointSet.Kind,
                backgroundLabel: String? = nil) {
        self.architecture = architecture
        self.encoding = encoding
        self.jointSetKind = jointSetKind
        self.backgroundLabel = backgroundLabel
    }
}
