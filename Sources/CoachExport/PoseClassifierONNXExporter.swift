import CoachModels
import Foundation

/// Action, hand-action and hand-pose classifiers as ONNX graphs (opset 13, IR 7), the same
/// graphs as their Core ML exports (`ActionClassifierCoreMLExporter`,
/// `HandPoseClassifierCoreMLExporter`) in ONNX operators.
///
/// Input `poses`: float32 [T, channels, J] — per frame x, y, [z,] confidence of each joint,
/// normalised with Vision's bottom-left origin (zeros for a missing joint; T = 1 for a hand
/// pose). Models that use chirality also take `chirality`: float32 [1], `VNChirality`'s raw
/// value (−1 left, 1 right, 0 unknown). Output `labelProbabilities`: float32 [classes], in the
/// order of the `classLabels` metadata entry.
public enum PoseClassifierONNXExporter {
    /// The inputs' and the output's names.
    public static let inputName = "poses", chiralityName = "chirality", outputName = "labelProbabilities"

    /// The ONNX model of an action or hand-action classifier.
    public static func model(action classifier: ActionClassifierModel, metadata: ModelMetadata) -> ONNXModel {
        let encoding = classifier.encoding, classes = classifier.labels.count
        let usesChirality = encoding.chirality != .ignore
        var builder = ONNXGraphBuilder(name: metadata.name ?? "action-classifier",
                                       inputs: inputs([encoding.windowLength, encoding.keypointChannels.count, encoding.jointCount], usesChirality),
                                       outputs: [ONNXValueInfo(name: outputName, dimensions: [classes])])
        let window = builder.actionEncoding(encoding, input: inputName, chirality: usesChirality ? chiralityName : nil)
        _ = builder.actionProbabilities(classifier, window: window, frames: encoding.windowLength, output: outputName)
        return ONNXModel(graph: builder.graph, producerVersion: CoachVersion.current,
                         documentation: "Coach action classifier. " + description(classifier.jointSet.names, usesChirality),
                         metadata: ExportMetadata.entries(for: metadata, inputDescription: description(classifier.jointSet.names, usesChirality)))
    }

    /// The ONNX model of a hand-pose classifier.
    public static func model(handPose classifier: HandPoseClassifierModel, metadata: ModelMetadata) -> ONNXModel {
        let encoding = classifier.encoding, classes = classifier.labels.count
        let usesChirality = encoding.chirality != .ignore
        var builder = ONNXGraphBuilder(name: metadata.name ?? "hand-pose-classifier",
                                       inputs: inputs([1, encoding.keypointChannels.count, encoding.jointCount], usesChirality),
                                       outputs: [ONNXValueInfo(name: outputName, dimensions: [classes])])
        let pose = builder.handPoseEncoding(encoding, input: inputName, chirality: usesChirality ? chiralityName : nil)
        let logits = classifier.network.graph.map { builder.actionNetwork($0, input: pose, frames: 1) }
            ?? builder.perceptron(classifier.network.perceptron!, input: pose, joints: encoding.jointCount, channels: encoding.channelCount)
        _ = builder.softmax(outputName, input: logits, axis: -1)
        return ONNXModel(graph: builder.graph, producerVersion: CoachVersion.current,
                         documentation: "Coach hand-pose classifier. " + description(classifier.jointSet.names, usesChirality),
                         metadata: ExportMetadata.entries(for: metadata, inputDescription: description(classifier.jointSet.names, usesChirality)))
    }

    private static func inputs(_ poses: [Int], _ usesChirality: Bool) -> [ONNXValueInfo] {
        [ONNXValueInfo(name: inputName, dimensions: poses)] + (usesChirality ? [ONNXValueInfo(name: chiralityName, dimensions: [1])] : [])
    }

    private static func description(_ joints: [String], _ usesChirality: Bool) -> String {
        "Input \(inputName): float32 [frames, channels, joints], per frame x, y, [z,] confidence of each joint (normalised, origin "
            + "bottom-left as Vision gives them; zeros for a missing joint), joints ordered as: " + joints.joined(separator: ", ")
            + (usesChirality ? ". Input \(chiralityName): float32 [1], VNChirality's raw value (-1 left, 1 right, 0 unknown)" : "")
            + ". Output \(outputName): float32 [classes], in the order of the 'classLabels' metadata entry"
    }
}
