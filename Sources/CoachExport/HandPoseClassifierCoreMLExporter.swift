import CoachModels
import Foundation

/// A hand-pose classifier as a Core ML `NeuralNetworkClassifier` with the interface of a Create
/// ML hand pose classifier (specification version 4): input `poses`, a MultiArray [1, 3, 21] —
/// x, y and confidence of each hand joint in Vision's order, normalised with Vision's
/// bottom-left origin, as `VNHumanHandPoseObservation.keypointsMultiArray()` gives them — and
/// outputs `label` and `labelProbabilities`. Models that use chirality (by default left hands
/// are mirrored) take a second input, `chirality` [1]: `VNChirality`'s raw value (−1 left, 1
/// right, 0 unknown).
///
/// Inside the network, `HandPoseInputEncoding`: y turned to Coach's top-left origin, joints with
/// confidence ≤ 0 missing, the pose moved to its wrist (or its detected joints' mean), mirrored
/// for a left hand, optionally turned upright, divided by the hand's size; then the perceptron or
/// the graph network and a softmax.
public enum HandPoseClassifierCoreMLExporter {
    /// Create ML's names.
    public static let inputName = "poses", labelName = "label", probabilitiesName = "labelProbabilities"
    /// The specification version the file declares.
    public static let specificationVersion = 4

    /// The Core ML model of `classifier`; `metadata` (the model file's) supplies the descriptive entries.
    public static func model(classifier: HandPoseClassifierModel, metadata: ModelMetadata) -> CoreMLModel {
        let encoding = classifier.encoding, j = encoding.jointCount
        var builder = CoreMLNetworkBuilder(ndArrays: true)
        let usesChirality = encoding.chirality != .ignore
        let encoded = builder.handPoseEncoding(encoding, input: inputName,
                                               chirality: usesChirality ? ActionClassifierCoreMLExporter.chiralityName : nil)
        let logits: String
        if let graph = classifier.network.graph {
            logits = builder.actionNetwork(graph, input: encoded, frames: 1)
        } else {
            logits = builder.perceptron(classifier.network.perceptron!, input: encoded, joints: j, channels: encoding.channelCount)
        }
        builder.layer("probabilities", inputs: [logits], .softmaxND(axis: -1), output: probabilitiesName)
        return ActionClassifierCoreMLExporter.poseClassifier(
            builder.network, poses: [1, encoding.keypointChannels.count, j], usesChirality: usesChirality, labels: classifier.labels,
            labelDescription: "Most likely hand pose category", inputDescription: inputDescription(classifier), metadata: metadata)
    }

    /// What the input holds.
    static func inputDescription(_ classifier: HandPoseClassifierModel) -> String {
        "A hand pose to classify: the second dimension indexes " + classifier.encoding.keypointChannels.joined(separator: ", ")
            + " of each keypoint (normalised, origin bottom-left as Vision gives them); the last indexes the joints, ordered as: "
            + classifier.jointSet.names.joined(separator: ", ")
    }
}
