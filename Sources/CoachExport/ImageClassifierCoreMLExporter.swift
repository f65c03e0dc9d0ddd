import CoachModels
import Foundation

/// An image classifier and its backbone as one Core ML `NeuralNetworkClassifier`
/// (specification version 4: Core ML 3, iOS 13 and macOS 10.15 or later), a drop-in for a
/// Create ML image classifier.
///
/// Input `image`: an RGB image of `shortSide × shortSide` (256²). With Vision, a
/// `VNCoreMLRequest` whose `imageCropAndScaleOption` is `.centerCrop` scales the short side of
/// any photo to 256 and cuts out the centre square, and the network's first layer cuts out the
/// centre `cropSize × cropSize` (224²) of that: Coach's own preprocessing (short side to 256, centre
/// 224² crop), up to the resampling filter. Inside: `NeuralNetworkImageScaler` computes
/// `(x − 127) / 128`, EfficientNet-Lite0 with Coach's folded weights (`same` padding, ReLU6
/// as `clip`, depthwise convolutions as `nGroups = channels`), global average pooling (of the
/// head's activations, and of the stride-16 map after them when the model reads both), the
/// head's inner products (ReLU between) and a softmax.
/// Outputs: `classLabel` (the most probable label) and `classLabelProbs` (label → probability).
public enum ImageClassifierCoreMLExporter {
    /// The input's name.
    public static let inputName = "image"
    /// Create ML's output names.
    public static let labelName = "classLabel", probabilitiesName = "classLabelProbs"
    /// The specification version the file declares (the `clip` layer needs 4).
    public static let specificationVersion = 4

    /// The Core ML model of `classifier` on `backbone`; `metadata` (the model file's) supplies
    /// the class labels and the descriptive entries. The backbone must be the model's.
    public static func model(classifier: ImageClassifierModel, backbone: Backbone, metadata: ModelMetadata) -> CoreMLModel {
        let encoding = classifier.encoding
        let size = encoding.shortSide, crop = encoding.cropSize
        var builder = CoreMLNetworkBuilder()
        builder.scaleImage(inputName, mean: encoding.mean, standardDeviation: encoding.standardDeviation)
        let start = (size - crop) / 2, end = size - crop - start
        let cropped = builder.layer("preprocess.crop", inputs: [inputName], .crop(top: start, bottom: end, left: start, right: end))
        let maps = builder.efficientNetLite0(backbone.network, input: cropped, height: crop, width: crop)
        var activations = builder.layer("backbone.pool", inputs: [maps.stride32], .globalAveragePooling)
        if classifier.featureLayers == .headAndStride16 {
            let pooled16 = builder.layer("backbone.pool16", inputs: [maps.stride16], .globalAveragePooling)
            activations = builder.layer("backbone.features", inputs: [activations, pooled16], .concat)
        }
        for (index, layer) in classifier.head.layers.enumerated() {
            let prefix = "head.layers.\(index)"
            let inputs = layer.weight.shape[0], outputs = layer.weight.shape[1]
            let weight = layer.weight.scalars
            var transposed = [Float](repeating: 0, count: weight.count)   // [inputs, outputs] → [outputs, inputs]
            for i in 0..<inputs { for o in 0..<outputs { transposed[o * inputs + i] = weight[i * outputs + o] } }
            activations = builder.layer(prefix, inputs: [activations], .innerProduct(
                inputChannels: inputs, outputChannels: outputs, weights: transposed, bias: layer.bias.scalars))
            if index < classifier.head.layers.count - 1 {
                activations = builder.layer("\(prefix).relu", inputs: [activations], .activation(.relu))
            }
        }
        builder.layer("head.softmax", inputs: [activations], .softmax, output: probabilitiesName)
        let image = CoreMLFeature(name: inputName, shortDescription: inputDescription(encoding), type: .rgbImage(width: size, height: size))
        return CoreMLModel.classifier(builder.network, inputs: [image], labels: classifier.labels, label: labelName,
                                      probabilities: probabilitiesName, labelDescription: "The most probable label",
                                      probabilitiesDescription: "The probability of each label",
                                      metadata: ExportMetadata.coreML(for: metadata, inputDescription: inputDescription(encoding)),
                                      specificationVersion: specificationVersion)
    }

    /// What the input holds.
    static func inputDescription(_ encoding: ImageInputEncoding) -> String {
        "A photo, \(encoding.shortSide)×\(encoding.shortSide) RGB: with Vision, imageCropAndScaleOption .centerCrop; the model "
            + "classifies its centre \(encoding.cropSize)×\(encoding.cropSize)"
    }
}
