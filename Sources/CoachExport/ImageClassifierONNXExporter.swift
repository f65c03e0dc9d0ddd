import CoachModels
import Foundation

/// An image classifier and its backbone as one ONNX graph (opset 13, IR 7).
///
/// Input `image`: float32 [1, 3, S, S] (NCHW, S = the model's crop size, 224), RGB 0…255
/// after Coach's own resizing — the short side scaled to 256 with anti-aliased bilinear
/// filtering, then the centre S × S cut out (`RGBImage.resizedAndCenterCropped`). Inside the
/// graph: `(x − mean) / standardDeviation` (127 and 128), EfficientNet-Lite0 with batch norm
/// folded into its convolutions as Coach folds it (TensorFlow SAME padding as explicit
/// `pads`, ReLU6 as `Clip(0, 6)`, depthwise convolutions as `group = channels`), global
/// average pooling (of the head's activations, and of the stride-16 map concatenated after them
/// when the model reads both), then the head's dense layers (`Gemm`, ReLU between) and a softmax.
/// Output `classLabelProbs`: float32 [1, classes] in the order of the `classLabels` metadata.
public enum ImageClassifierONNXExporter {
    /// The graph input's name.
    public static let inputName = "image"
    /// The graph output's name (Create ML's name for the probabilities).
    public static let outputName = "classLabelProbs"

    /// The ONNX model of `classifier` on `backbone`; `metadata` (the model file's) supplies
    /// the class labels and the descriptive entries. The backbone must be the model's (see
    /// `ImageClassifierModel.checkBackbone`).
    public static func model(classifier: ImageClassifierModel, backbone: Backbone, metadata: ModelMetadata) -> ONNXModel {
        let size = classifier.encoding.cropSize, classes = classifier.labels.count
        var builder = ONNXGraphBuilder(
            name: classifier.name ?? "image-classifier",
            inputs: [ONNXValueInfo(name: inputName, dimensions: [1, 3, size, size])],
            outputs: [ONNXValueInfo(name: outputName, dimensions: [1, classes])])
        let centred = builder.node("Sub", "preprocess.subtract", inputs: [inputName, builder.scalar(classifier.encoding.mean)])
        let normalised = builder.node("Div", "preprocess.divide",
                                      inputs: [centred, builder.scalar(classifier.encoding.standardDeviation)])
        let maps = builder.efficientNetLite0(backbone.network, input: normalised, height: size, width: size)
        var pooled = builder.node("GlobalAveragePool", "backbone.pool", inputs: [maps.stride32])
        if classifier.featureLayers == .headAndStride16 {
            let pooled16 = builder.node("GlobalAveragePool", "backbone.pool16", inputs: [maps.stride16])
            pooled = builder.concatenate("backbone.pooled", inputs: [pooled, pooled16], axis: 1, output: nil)
        }
        var activations = builder.node("Flatten", "backbone.features", inputs: [pooled],
                                       attributes: [ONNXAttribute("axis", .integer(1))])
        for (index, layer) in classifier.head.layers.enumerated() {
            let prefix = "head.layers.\(index)"
            let weight = builder.constant("\(prefix).weight", dimensions: layer.weight.shape, values: layer.weight.scalars)
            let bias = builder.constant("\(prefix).bias", dimensions: layer.bias.shape, values: layer.bias.scalars)
            activations = builder.node("Gemm", prefix, inputs: [activations, weight, bias])
            if index < classifier.head.layers.count - 1 {
                activations = builder.node("Relu", "\(prefix).relu", inputs: [activations])
            }
        }
        builder.node("Softmax", "head.softmax", inputs: [activations],
                     attributes: [ONNXAttribute("axis", .integer(1))], output: outputName)
        return ONNXModel(graph: builder.graph, producerVersion: CoachVersion.current,
                         documentation: documentation(classifier: classifier),
                         metadata: ExportMetadata.entries(for: metadata, inputDescription: inputDescription(classifier.encoding)))
    }

    /// What the input holds and how to make it, for the file's description and metadata.
    static func inputDescription(_ encoding: ImageInputEncoding) -> String {
        "\(inputName): float32 [1, 3, \(encoding.cropSize), \(encoding.cropSize)] (NCHW), RGB 0…255 after scaling the short side "
            + "to \(encoding.shortSide) (anti-aliased bilinear) and cutting out the centre \(encoding.cropSize)×\(encoding.cropSize); "
            + "the graph computes (x − \(format(encoding.mean))) / \(format(encoding.standardDeviation)) itself"
    }

    private static func documentation(classifier: ImageClassifierModel) -> String {
        "Coach image classifier (\(classifier.head.kind) head on EfficientNet-Lite0). Input " + inputDescription(classifier.encoding)
            + ". Output \(outputName): float32 [1, \(classifier.labels.count)] softmax probabilities in the order of the "
            + "'classLabels' metadata entry."
    }

    private static func format(_ value: Float) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
