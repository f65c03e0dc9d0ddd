import CoachModels
import Foundation

/// An object detector as the Core ML pipeline Vision runs as `VNRecognizedObjectObservation`s,
/// like a Create ML object detector's (specification version 4: Core ML 3, iOS 13 and macOS
/// 10.15 or later): the network, then a `NonMaximumSuppression` model.
///
/// Input `image`: an RGB image of the detector's input size (Coach letterboxes photos into it:
/// with Vision, `imageCropAndScaleOption` `.scaleFit`, which fills the margins with black where
/// Coach uses grey 127). Optional inputs `iouThreshold` and `confidenceThreshold` (Double;
/// defaults Coach's, 0.45 and 0.5). Outputs, after per-class NMS (a box is compared only with
/// boxes of its most probable class): `confidence` [boxes, classes] and `coordinates`
/// [boxes, 4] (centre x, centre y, width, height, normalised to the image, origin top-left),
/// the class labels in the NMS model. Before specification 5, Core ML's NMS reads and writes
/// only float64 arrays, so these outputs (and the network's) are declared `DOUBLE`, as Create
/// ML's detectors of that version declare them; the network computes in float32.
///
/// Inside the network (N-D arrays: the image is [1, 3, H, W]): `(x − 127) / 128` as the image
/// scaler, EfficientNet-Lite0, the detection head and its box decoding as the ONNX export has
/// them (`ExportGraphBuilder.detectionHead`, `.detectionDecoding`), ending in `rawConfidence`
/// [boxes, classes] and `rawCoordinates` [boxes, 4] for every slot of every level.
public enum ObjectDetectorCoreMLExporter {
    /// The inputs' names.
    public static let inputName = "image", iouThresholdName = "iouThreshold", confidenceThresholdName = "confidenceThreshold"
    /// Create ML's names of the outputs.
    public static let confidenceName = "confidence", coordinatesName = "coordinates"
    /// The network's outputs (every box, before NMS).
    public static let rawConfidenceName = "rawConfidence", rawCoordinatesName = "rawCoordinates"
    /// The specification version the files declare (the N-D layers need 4).
    public static let specificationVersion = 4

    /// The Core ML pipeline of `detector` on `backbone`; `metadata` (the model file's) supplies
    /// the class labels and the descriptive entries. The backbone must be the model's.
    public static func model(detector: ObjectDetectorModel, backbone: Backbone, metadata: ModelMetadata) -> CoreMLModel {
        let configuration = detector.configuration, grids = configuration.grids
        let height = configuration.inputHeight, width = configuration.inputWidth, classes = configuration.classCount
        let boxes = grids.map(\.slotCount).reduce(0, +)
        let labels = metadata.classLabels

        var builder = CoreMLNetworkBuilder(ndArrays: true)
        builder.scaleImage(inputName, mean: DetectorInputEncoding.mean, standardDeviation: DetectorInputEncoding.standardDeviation)
        builder.detector(detector, backbone: backbone, input: inputName, confidenceName: rawConfidenceName,
                         coordinatesName: rawCoordinatesName, rawName: { _ in nil })

        let image = CoreMLFeature(name: inputName, shortDescription: inputDescription(configuration),
                                  type: .rgbImage(width: width, height: height))
        let rawConfidence = CoreMLFeature(name: rawConfidenceName, shortDescription: "Every box's class confidences, before NMS",
                                          type: .multiArray(shape: [boxes, classes], double: true))
        let rawCoordinates = CoreMLFeature(name: rawCoordinatesName, shortDescription: "Every box (centre x, y, width, height), before NMS",
                                           type: .multiArray(shape: [boxes, 4], double: true))
        let network = CoreMLModel(specificationVersion: specificationVersion,
                                  description: CoreMLModelDescription(inputs: [image], outputs: [rawConfidence, rawCoordinates]),
                                  body: .neuralNetwork(builder.network))

        let iouThreshold = CoreMLFeature(name: iouThresholdName, shortDescription: "(optional) IoU threshold override (default: "
                                            + "\(ObjectDetectorModel.defaultIoUThreshold))", type: .double, isOptional: true)
        let confidenceThreshold = CoreMLFeature(name: confidenceThresholdName, shortDescription: "(optional) confidence threshold "
                                                    + "override (default: \(ObjectDetectorModel.defaultConfidenceThreshold))",
                                                type: .double, isOptional: true)
        let confidence = CoreMLFeature(name: confidenceName, shortDescription: "Each kept box's confidence for every class, in "
                                          + "the order of the class labels", type: .flexibleMultiArray(ranges: [(0, -1), (classes, classes)], double: true))
        let boxesOut = CoreMLFeature(name: coordinatesName, shortDescription: "Each kept box: centre x, centre y, width, height, "
                                        + "normalised to the image", type: .flexibleMultiArray(ranges: [(0, -1), (4, 4)], double: true))
        let suppression = CoreMLNonMaximumSuppression(
            iouThreshold: ObjectDetectorModel.defaultIoUThreshold, confidenceThreshold: ObjectDetectorModel.defaultConfidenceThreshold,
            perClass: true, labels: labels, confidenceInput: rawConfidenceName, coordinatesInput: rawCoordinatesName,
            iouThresholdInput: iouThresholdName, confidenceThresholdInput: confidenceThresholdName,
            confidenceOutput: confidenceName, coordinatesOutput: coordinatesName)
        let nms = CoreMLModel(specificationVersion: specificationVersion,
                              description: CoreMLModelDescription(inputs: [rawConfidence, rawCoordinates, required(iouThreshold),
                                                                           required(confidenceThreshold)],
                                                                  outputs: [confidence, boxesOut]),
                              body: .nonMaximumSuppression(suppression))

        var coreMLMetadata = ExportMetadata.coreML(for: metadata, inputDescription: inputDescription(configuration))
        coreMLMetadata.userDefined[iouThresholdName] = "\(ObjectDetectorModel.defaultIoUThreshold)"
        coreMLMetadata.userDefined[confidenceThresholdName] = "\(ObjectDetectorModel.defaultConfidenceThreshold)"
        coreMLMetadata.userDefined["anchors"] = ExportMetadata.json(configuration.levels)
        let description = CoreMLModelDescription(inputs: [image, iouThreshold, confidenceThreshold], outputs: [confidence, boxesOut],
                                                 metadata: coreMLMetadata)
        return CoreMLModel(specificationVersion: specificationVersion, description: description, body: .pipeline([network, nms]))
    }

    /// `feature`, not optional: the pipeline's threshold inputs are optional, the NMS model's may
    /// not be (Core ML's validator: "Features cannot be optional to this type of model").
    private static func required(_ feature: CoreMLFeature) -> CoreMLFeature {
        var result = feature
        result.isOptional = false
        return result
    }

    /// What the input holds.
    static func inputDescription(_ configuration: DetectorConfiguration) -> String {
        "A photo, \(configuration.inputWidth)×\(configuration.inputHeight) RGB, letterboxed (aspect ratio kept; with Vision, "
            + "imageCropAndScaleOption .scaleFit)"
    }
}
