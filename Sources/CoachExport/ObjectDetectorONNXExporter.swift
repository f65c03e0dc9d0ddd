import CoachModels
import CoachNN
import Foundation

/// An object detector, its backbone and its box decoding as one ONNX graph (opset 13, IR 7);
/// no non-maximum suppression.
///
/// Input `image`: float32 [1, 3, H, W] (NCHW, H × W the model's input size), RGB 0…255 after
/// Coach's own letterboxing — `RGBImage.letterboxed(width:height:fillValue: 127)` (aspect ratio
/// kept, anti-aliased bilinear, centred on grey 127), as `DetectorInputEncoding.encode` does.
/// Inside the graph: `(x − 127) / 128`, EfficientNet-Lite0 (see
/// `ExportGraphBuilder.efficientNetLite0`) up to its stride-16 and stride-32 maps, then the
/// `DetectionHead` (1×1 laterals as `Conv`, nearest ×2 upsampling as `Resize`, 2×2 average
/// pooling, batch norms as `Mul`/`Add` with Coach's inference-mode scale and shift, swish as
/// `x · Sigmoid(x)`).
///
/// Outputs:
/// - `rawStride16` / `rawStride32` (one per level the model has): float32
///   [1, gridHeight, gridWidth, slots · (5 + K)], exactly the head's raw tensor
///   `ObjectDetectorModel.rawOutputs` gives (NHWC; slot `a` of cell (row, column) holds
///   `tx, ty, tw, th, to, c₁…c_K`, decoded as `DetectionBoxCoding` says).
/// - `confidence`: float32 [boxes, K], `σ(to) · softmax(c)` for every slot of every level
///   (levels finest first, then rows, columns, slots).
/// - `coordinates`: float32 [boxes, 4], the same slots' boxes as centre x, centre y, width,
///   height normalised to the letterboxed input (0…1, origin top-left), as
///   `DetectionBoxCoding.decode` computes them divided by W and H. To map a box to the
///   original image, undo the letterbox (`LetterboxTransform`: subtract the offset, divide
///   by the scale).
public enum ObjectDetectorONNXExporter {
    /// The graph input's name.
    public static let inputName = "image"
    /// Create ML's names of the decoded outputs.
    public static let confidenceName = "confidence", coordinatesName = "coordinates"

    /// The raw output's name of a level of `stride`.
    public static func rawOutputName(stride: Int) -> String { "rawStride\(stride)" }

    /// The ONNX model of `detector` on `backbone`; `metadata` (the model file's) supplies the
    /// class labels and the descriptive entries. The backbone must be the model's.
    public static func model(detector: ObjectDetectorModel, backbone: Backbone, metadata: ModelMetadata) -> ONNXModel {
        let configuration = detector.configuration, grids = configuration.grids
        let height = configuration.inputHeight, width = configuration.inputWidth, classes = configuration.classCount
        let boxes = grids.map(\.slotCount).reduce(0, +)
        var outputs = grids.map {
            ONNXValueInfo(name: rawOutputName(stride: $0.stride), dimensions: [1, $0.gridHeight, $0.gridWidth, $0.slotsPerCell * $0.valuesPerSlot])
        }
        outputs += [ONNXValueInfo(name: confidenceName, dimensions: [boxes, classes]),
                    ONNXValueInfo(name: coordinatesName, dimensions: [boxes, 4])]
        var builder = ONNXGraphBuilder(name: metadata.name ?? "object-detector",
                                       inputs: [ONNXValueInfo(name: inputName, dimensions: [1, 3, height, width])],
                                       outputs: outputs)
        let centred = builder.node("Sub", "preprocess.subtract", inputs: [inputName, builder.scalar(DetectorInputEncoding.mean)])
        let normalised = builder.node("Div", "preprocess.divide",
                                      inputs: [centred, builder.scalar(DetectorInputEncoding.standardDeviation)])
        builder.detector(detector, backbone: backbone, input: normalised, confidenceName: confidenceName,
                         coordinatesName: coordinatesName, rawName: rawOutputName(stride:))
        var entries = ExportMetadata.entries(for: metadata, inputDescription: inputDescription(configuration))
        entries["anchors"] = ExportMetadata.json(configuration.levels)
        entries["outputs"] = outputDescription(configuration)
        return ONNXModel(graph: builder.graph, producerVersion: CoachVersion.current,
                         documentation: "Coach object detector (EfficientNet-Lite0 backbone and detection head, no NMS). Input "
                            + inputDescription(configuration) + ". " + outputDescription(configuration),
                         metadata: entries)
    }

    /// What the input holds and how to make it.
    static func inputDescription(_ configuration: DetectorConfiguration) -> String {
        "\(inputName): float32 [1, 3, \(configuration.inputHeight), \(configuration.inputWidth)] (NCHW), RGB 0…255 after "
            + "letterboxing into \(configuration.inputWidth)×\(configuration.inputHeight) (aspect ratio kept, anti-aliased bilinear, "
            + "centred on grey 127); the graph computes (x − 127) / 128 itself"
    }

    /// What the outputs hold.
    static func outputDescription(_ configuration: DetectorConfiguration) -> String {
        let raws = configuration.grids.map { grid in
            "\(rawOutputName(stride: grid.stride)) [1, \(grid.gridHeight), \(grid.gridWidth), \(grid.slotsPerCell)·\(grid.valuesPerSlot)]"
        }
        let coding = configuration.usesAnchors
            ? "cx = (column + σ(tx))·stride, cy = (row + σ(ty))·stride, w = anchorWidth·e^tw, h = anchorHeight·e^th"
            : "cx = (column + ½ + tx)·stride, cy = (row + ½ + ty)·stride, w = stride·e^tw, h = stride·e^th"
        return "Raw head outputs " + raws.joined(separator: ", ") + " (NHWC; per slot tx, ty, tw, th, objectness logit, "
            + "class logits; \(coding) in input pixels, tw and th clamped to ±8; anchors per level in the 'anchors' metadata). "
            + "Decoded, no NMS: \(confidenceName) [boxes, classes] = σ(objectness)·softmax(class logits), \(coordinatesName) "
            + "[boxes, 4] = centre x, centre y, width, height normalised to the letterboxed input; boxes are every slot of "
            + "every level, finest level first, then rows, columns, slots"
    }
}
