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
/// `ONNXGraphBuilder.efficientNetLite0`) up to its stride-16 and stride-32 maps, then the
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
        let maps = builder.efficientNetLite0(backbone.network, input: normalised, height: height, width: width)
        let raws = addHead(detector.head, maps: maps, to: &builder)
        var confidences: [String] = [], coordinates: [String] = []
        for (index, (raw, grid)) in zip(raws, grids).enumerated() {
            let decoded = addDecoding(of: raw, grid: grid, inputWidth: width, inputHeight: height, prefix: "decode.\(index)", to: &builder)
            confidences.append(decoded.confidence)
            coordinates.append(decoded.coordinates)
        }
        builder.node("Concat", "decode.confidence", inputs: confidences, attributes: [ONNXAttribute("axis", .integer(0))],
                     output: confidenceName)
        builder.node("Concat", "decode.coordinates", inputs: coordinates, attributes: [ONNXAttribute("axis", .integer(0))],
                     output: coordinatesName)
        var entries = ONNXMetadata.entries(for: metadata, inputDescription: inputDescription(configuration))
        entries["anchors"] = ONNXMetadata.json(configuration.levels)
        entries["outputs"] = outputDescription(configuration)
        return ONNXModel(graph: builder.graph, producerVersion: CoachVersion.current,
                         documentation: "Coach object detector (EfficientNet-Lite0 backbone and detection head, no NMS). Input "
                            + inputDescription(configuration) + ". " + outputDescription(configuration),
                         metadata: entries)
    }

    /// Adds the head on the backbone's maps; returns each level's raw output, NHWC as Coach's decoder reads it.
    private static func addHead(_ head: DetectionHead, maps: ONNXGraphBuilder.EfficientNetLite0Maps,
                                to builder: inout ONNXGraphBuilder) -> [String] {
        let c = head.configuration, width = c.headWidth
        let height32 = c.inputHeight / 32, width32 = c.inputWidth / 32
        func pointwise(_ name: String, _ input: String, _ layer: Linear, height: Int, width: Int) -> String {
            let shape = layer.weight.value.shape
            return builder.convolution(name, input: input, height: height, width: width, inputChannels: shape[0], kernelSize: 1,
                                       stride: 1, depthwise: false, filter: layer.weight.value.scalars,
                                       bias: layer.bias?.value.scalars, outputChannels: shape[1]).output
        }
        func normalise(_ name: String, _ input: String, _ norm: BatchNorm, swish: Bool) -> String {
            // Coach's inference-mode batch norm: x · a + b, a = γ / √(σ² + ε), b = β − μ · a.
            let gamma = norm.scale.value.scalars, beta = norm.offset.value.scalars
            let mean = norm.runningMean.value.scalars, variance = norm.runningVariance.value.scalars
            var a = [Float](repeating: 0, count: gamma.count), b = a
            for k in gamma.indices {
                a[k] = gamma[k] / (variance[k] + norm.epsilon).squareRoot()
                b[k] = beta[k] - mean[k] * a[k]
            }
            let scaled = builder.node("Mul", "\(name).scale", inputs: [input, builder.constant("\(name).a", dimensions: [1, a.count, 1, 1], values: a)])
            let shifted = builder.node("Add", name, inputs: [scaled, builder.constant("\(name).b", dimensions: [1, b.count, 1, 1], values: b)])
            guard swish else { return shifted }
            let gate = builder.node("Sigmoid", "\(name).sigmoid", inputs: [shifted])
            return builder.node("Mul", "\(name).swish", inputs: [shifted, gate])
        }
        let top = pointwise("head.lateral32", maps.stride32, head.lateral32, height: height32, width: width32)
        let side = pointwise("head.lateral16", maps.stride16, head.lateral16, height: 2 * height32, width: 2 * width32)
        var raws: [String] = []
        for (index, (description, level)) in zip(c.levels, head.levels).enumerated() {
            let prefix = "head.levels.\(index)"
            let size = description.stride == 16 ? (2 * height32, 2 * width32) : (height32, width32)
            var x: String
            if description.stride == 16 {
                let upsampled = builder.node("Resize", "\(prefix).upsample", inputs: [top, "", builder.constant("\(prefix).upsample.scales", dimensions: [4], values: [1, 1, 2, 2])],
                                             attributes: [ONNXAttribute("coordinate_transformation_mode", .string("asymmetric")),
                                                          ONNXAttribute("mode", .string("nearest")),
                                                          ONNXAttribute("nearest_mode", .string("floor"))])
                x = builder.node("Add", "\(prefix).sum", inputs: [upsampled, side])
            } else {
                let pooled = builder.node("AveragePool", "\(prefix).pool", inputs: [side],
                                          attributes: [ONNXAttribute("kernel_shape", .integers([2, 2])), ONNXAttribute("strides", .integers([2, 2]))])
                x = builder.node("Add", "\(prefix).sum", inputs: [top, pooled])
            }
            x = normalise("\(prefix).norm", x, level.norm, swish: true)
            for (blockIndex, block) in level.blocks.enumerated() {
                let name = "\(prefix).blocks.\(blockIndex)"
                var y = builder.convolution("\(name).depthwise", input: x, height: size.0, width: size.1, inputChannels: width,
                                            kernelSize: 3, stride: 1, depthwise: true, filter: block.depthwise.weight.value.scalars,
                                            bias: nil, outputChannels: width).output
                y = normalise("\(name).norm1", y, block.norm1, swish: true)
                y = pointwise("\(name).pointwise", y, block.pointwise, height: size.0, width: size.1)
                y = normalise("\(name).norm2", y, block.norm2, swish: false)
                x = builder.node("Add", "\(name).residual", inputs: [x, y])
            }
            let output = pointwise("\(prefix).output", x, level.output, height: size.0, width: size.1)
            raws.append(builder.node("Transpose", "\(prefix).nhwc", inputs: [output],
                                     attributes: [ONNXAttribute("perm", .integers([0, 2, 3, 1]))],
                                     output: rawOutputName(stride: description.stride)))
        }
        return raws
    }

    /// Adds `DetectionBoxCoding`'s decoding of one level's raw output: confidences [slots, K]
    /// and normalised centre/size boxes [slots, 4].
    private static func addDecoding(of raw: String, grid: DetectionGrid, inputWidth: Int, inputHeight: Int, prefix: String,
                                    to builder: inout ONNXGraphBuilder) -> (confidence: String, coordinates: String) {
        let slots = grid.slotCount, perSlot = grid.valuesPerSlot
        let rows = builder.node("Reshape", "\(prefix).rows", inputs: [raw, builder.integers("\(prefix).shape", [Int64(slots), Int64(perSlot)])])
        func columns(_ name: String, _ from: Int, _ to: Int) -> String {
            builder.node("Slice", "\(prefix).\(name)", inputs: [rows, builder.integers("\(prefix).\(name).starts", [Int64(from)]),
                                                                  builder.integers("\(prefix).\(name).ends", [Int64(to)]),
                                                                  builder.integers("\(prefix).\(name).axes", [1])])
        }
        // Per slot: the cell's offset and the size unit (anchor or stride), both divided by W and H.
        let s = Double(grid.stride), w = Double(inputWidth), h = Double(inputHeight)
        var offsets: [Float] = [], units: [Float] = []
        for row in 0..<grid.gridHeight {
            for column in 0..<grid.gridWidth {
                for slot in 0..<grid.slotsPerCell {
                    let centre = grid.usesAnchors ? 0 : 0.5
                    offsets += [Float((Double(column) + centre) * s / w), Float((Double(row) + centre) * s / h)]
                    let unit = grid.usesAnchors ? (grid.anchors[slot].width, grid.anchors[slot].height) : (s, s)
                    units += [Float(unit.0 / w), Float(unit.1 / h)]
                }
            }
        }
        var shift = columns("xy", 0, 2)
        if grid.usesAnchors { shift = builder.node("Sigmoid", "\(prefix).xy.sigmoid", inputs: [shift]) }
        let scaled = builder.node("Mul", "\(prefix).xy.scale", inputs: [shift, builder.constant("\(prefix).stride", dimensions: [1, 2],
                                                                                                 values: [Float(s / w), Float(s / h)])])
        let centres = builder.node("Add", "\(prefix).centre", inputs: [scaled, builder.constant("\(prefix).offsets", dimensions: [slots, 2], values: offsets)])
        let bound = DetectionBoxCoding.maximumLogScale
        let logScales = builder.node("Clip", "\(prefix).wh.clip", inputs: [columns("wh", 2, 4), builder.scalar(-bound), builder.scalar(bound)])
        let scales = builder.node("Exp", "\(prefix).wh.exp", inputs: [logScales])
        let sizes = builder.node("Mul", "\(prefix).size", inputs: [scales, builder.constant("\(prefix).units", dimensions: [slots, 2], values: units)])
        let coordinates = builder.node("Concat", "\(prefix).coordinates", inputs: [centres, sizes], attributes: [ONNXAttribute("axis", .integer(1))])
        let objectness = builder.node("Sigmoid", "\(prefix).objectness", inputs: [columns("object", 4, 5)])
        let probabilities = builder.node("Softmax", "\(prefix).classes", inputs: [columns("logits", 5, perSlot)],
                                         attributes: [ONNXAttribute("axis", .integer(1))])
        let confidence = builder.node("Mul", "\(prefix).confidence", inputs: [objectness, probabilities])
        return (confidence, coordinates)
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
