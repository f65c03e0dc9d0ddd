import CoachModels
import Foundation

/// An action classifier as a Core ML `NeuralNetworkClassifier` with the interface of Apple's own
/// Action & Vision throw classifier (`PlayerActionClassifier.mlmodel`, made by Create ML):
/// specification version 4, input `poses`, a MultiArray [T, 3, J] — per frame x, y and
/// confidence of each joint, in normalised image coordinates with Vision's bottom-left origin,
/// exactly what `VNHumanBodyPoseObservation.keypointsMultiArray()` gives (3-D models: [T, 4, J],
/// x, y, z, confidence) — and outputs `label` and `labelProbabilities`, the class labels inside.
///
/// Everything Coach's input encoding does is inside the network (`ActionInputEncoding`): y
/// turned to Coach's top-left origin, joints with confidence ≤ 0 treated as missing, the window
/// centred on its detected keypoints' mean and divided by the pose's size, velocities of joints
/// detected in consecutive frames; then the network (`ActionClassifierNetwork`) and a softmax,
/// averaged as Coach does with the random-convolution member when the model has one
/// (`RandomConvolutionHead`: gaps filled, MiniRocket's features, logistic regression).
/// Frames missing at the end of a short window are zero rows, as the Action & Vision app pads them.
/// Hand models that use chirality (mirroring left hands, or hand channels) take a second input,
/// `chirality` [1]: `VNChirality`'s raw value (−1 left, 1 right, 0 unknown).
public enum ActionClassifierCoreMLExporter {
    /// Apple's names.
    public static let inputName = "poses", labelName = "label", probabilitiesName = "labelProbabilities"
    /// The second input of hand models that use chirality.
    public static let chiralityName = "chirality"

    /// The `chirality` input: Vision's `VNChirality` raw value.
    static let chiralityFeature = CoreMLFeature(
        name: chiralityName, shortDescription: "Which hand the poses are of, as VNHumanHandPoseObservation.chirality's raw value: "
            + "-1 left, 1 right, 0 unknown", type: .multiArray(shape: [1]))
    /// The specification version the file declares (the N-D layers need 4).
    public static let specificationVersion = 4

    /// The Core ML model of `classifier`; `metadata` (the model file's) supplies the descriptive
    /// entries.
    public static func model(classifier: ActionClassifierModel, metadata: ModelMetadata) -> CoreMLModel {
        let encoding = classifier.encoding
        let t = encoding.windowLength, j = encoding.jointCount
        var builder = CoreMLNetworkBuilder(ndArrays: true)
        let usesChirality = encoding.chirality != .ignore
        let window = builder.actionEncoding(encoding, input: inputName, chirality: usesChirality ? chiralityName : nil)
        _ = builder.actionProbabilities(classifier, window: window, frames: t, output: probabilitiesName)
        return poseClassifier(builder.network, poses: [t, encoding.keypointChannels.count, j], usesChirality: usesChirality,
                              labels: classifier.labels, labelDescription: "Most likely action category",
                              inputDescription: inputDescription(classifier), metadata: metadata)
    }

    /// A pose classifier's `NeuralNetworkClassifier`: input `poses` of shape `poses` (and
    /// `chirality` when `usesChirality`), outputs `label` and `labelProbabilities`.
    static func poseClassifier(_ network: CoreMLNeuralNetwork, poses: [Int], usesChirality: Bool, labels: [String],
                               labelDescription: String, inputDescription: String, metadata: ModelMetadata) -> CoreMLModel {
        var inputs = [CoreMLFeature(name: inputName, shortDescription: inputDescription, type: .multiArray(shape: poses))]
        if usesChirality { inputs.append(chiralityFeature) }
        return CoreMLModel.classifier(network, inputs: inputs, labels: labels, label: labelName, probabilities: probabilitiesName,
                                      labelDescription: labelDescription, probabilitiesDescription: "Probability of each category",
                                      metadata: ExportMetadata.coreML(for: metadata, inputDescription: inputDescription),
                                      specificationVersion: specificationVersion)
    }

    /// What the input holds, as Apple's model describes it.
    static func inputDescription(_ classifier: ActionClassifierModel) -> String {
        let channels = classifier.encoding.keypointChannels.joined(separator: ", ")
        return "A sequence of poses to classify. Its multiarray encoding uses the first dimension to index time over "
            + "\(classifier.windowLength) frames (at \(formatted(classifier.frameRate)) frames per second). The second dimension "
            + "indexes \(channels) of pose keypoint locations (normalised, origin bottom-left as Vision gives them). The last "
            + "dimension indexes the keypoint type, ordered as: " + classifier.jointSet.names.joined(separator: ", ")
    }

    private static func formatted(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
