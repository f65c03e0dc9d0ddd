import CoachModels
import CoachNN
import Foundation

extension ExportGraphBuilder {
    /// Adds a whole detector on a normalised channels-first `input` [1, 3, H, W]: EfficientNet-Lite0,
    /// the head (raw outputs named `rawName(stride)`) and the decoding of every slot of every level
    /// (finest first), joined into `confidenceName` [boxes, K] and `coordinatesName` [boxes, 4].
    public mutating func detector(_ detector: ObjectDetectorModel, backbone: Backbone, input: String,
                                  confidenceName: String, coordinatesName: String, rawName: (Int) -> String?) {
        let c = detector.configuration
        let maps = efficientNetLite0(backbone.network, input: input, height: c.inputHeight, width: c.inputWidth)
        let raws = detectionHead(detector.head, maps: maps, rawName: rawName)
        var confidences: [String] = [], coordinates: [String] = []
        for (index, (raw, grid)) in zip(raws, c.grids).enumerated() {
            let decoded = detectionDecoding(of: raw, grid: grid, inputWidth: c.inputWidth, inputHeight: c.inputHeight,
                                            prefix: "decode.\(index)")
            confidences.append(decoded.confidence)
            coordinates.append(decoded.coordinates)
        }
        _ = concatenate("decode.confidence", inputs: confidences, axis: 0, output: confidenceName)
        _ = concatenate("decode.coordinates", inputs: coordinates, axis: 0, output: coordinatesName)
    }

    /// Adds an object detector's `DetectionHead` on the backbone's maps; returns each level's raw
    /// output [1, gridHeight, gridWidth, slots · (5 + K)], NHWC as Coach's decoder reads it,
    /// named `rawName(stride)`. Batch norms are Coach's inference-mode scale and shift, swish
    /// is `x · σ(x)`.
    public mutating func detectionHead(_ head: DetectionHead, maps: EfficientNetLite0Maps,
                                       rawName: (Int) -> String?) -> [String] {
        let c = head.configuration, width = c.headWidth
        let height32 = c.inputHeight / 32, width32 = c.inputWidth / 32
        let top = pointwise("head.lateral32", maps.stride32, head.lateral32, height: height32, width: width32)
        let side = pointwise("head.lateral16", maps.stride16, head.lateral16, height: 2 * height32, width: 2 * width32)
        var raws: [String] = []
        for (index, (description, level)) in zip(c.levels, head.levels).enumerated() {
            let prefix = "head.levels.\(index)"
            let size = description.stride == 16 ? (2 * height32, 2 * width32) : (height32, width32)
            var x = description.stride == 16
                ? add("\(prefix).sum", upsampleNearest2("\(prefix).upsample", input: top), side)
                : add("\(prefix).sum", top, averagePool2("\(prefix).pool", input: side))
            x = normalise("\(prefix).norm", x, level.norm, swish: true)
            for (blockIndex, block) in level.blocks.enumerated() {
                let name = "\(prefix).blocks.\(blockIndex)"
                var y = convolution("\(name).depthwise", input: x, height: size.0, width: size.1, inputChannels: width,
                                    kernelSize: 3, stride: 1, depthwise: true, filter: block.depthwise.weight.value.scalars,
                                    bias: nil, outputChannels: width).output
                y = normalise("\(name).norm1", y, block.norm1, swish: true)
                y = pointwise("\(name).pointwise", y, block.pointwise, height: size.0, width: size.1)
                y = normalise("\(name).norm2", y, block.norm2, swish: false)
                x = add("\(name).residual", x, y)
            }
            let output = pointwise("\(prefix).output", x, level.output, height: size.0, width: size.1)
            raws.append(transpose("\(prefix).nhwc", input: output, permutation: [0, 2, 3, 1], output: rawName(description.stride)))
        }
        return raws
    }

    /// Adds `DetectionBoxCoding`'s decoding of one level's raw output: confidences [slots, K]
    /// (`σ(objectness) · softmax(class logits)`) and boxes [slots, 4] (centre x, centre y,
    /// width, height, divided by the input's width and height).
    public mutating func detectionDecoding(of raw: String, grid: DetectionGrid, inputWidth: Int, inputHeight: Int,
                                           prefix: String) -> (confidence: String, coordinates: String) {
        let slots = grid.slotCount, perSlot = grid.valuesPerSlot
        let rows = reshape("\(prefix).rows", input: raw, shape: [slots, perSlot])
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
        var shift = columns("\(prefix).xy", input: rows, from: 0, to: 2)
        if grid.usesAnchors { shift = sigmoid("\(prefix).xy.sigmoid", input: shift) }
        let scaled = multiply("\(prefix).xy.scale", shift,
                              constant("\(prefix).stride", dimensions: [1, 2], values: [Float(s / w), Float(s / h)]))
        let centres = add("\(prefix).centre", scaled, constant("\(prefix).offsets", dimensions: [slots, 2], values: offsets))
        let bound = DetectionBoxCoding.maximumLogScale
        let logScales = clip("\(prefix).wh.clip", input: columns("\(prefix).wh", input: rows, from: 2, to: 4),
                             minimum: -bound, maximum: bound)
        let sizes = multiply("\(prefix).size", exp("\(prefix).wh.exp", input: logScales),
                             constant("\(prefix).units", dimensions: [slots, 2], values: units))
        let coordinates = concatenate("\(prefix).coordinates", inputs: [centres, sizes], axis: 1, output: nil)
        let objectness = sigmoid("\(prefix).objectness", input: columns("\(prefix).object", input: rows, from: 4, to: 5))
        let probabilities = softmax("\(prefix).classes", input: columns("\(prefix).logits", input: rows, from: 5, to: perSlot), axis: 1)
        return (multiply("\(prefix).confidence", objectness, probabilities), coordinates)
    }

    /// A 1×1 convolution with a `Linear` layer's weights.
    private mutating func pointwise(_ name: String, _ input: String, _ layer: Linear, height: Int, width: Int) -> String {
        let shape = layer.weight.value.shape
        return convolution(name, input: input, height: height, width: width, inputChannels: shape[0], kernelSize: 1,
                           stride: 1, depthwise: false, filter: layer.weight.value.scalars,
                           bias: layer.bias?.value.scalars, outputChannels: shape[1]).output
    }

    /// Coach's inference-mode batch norm `x · a + b` (a = γ / √(σ² + ε), b = β − μ · a), then swish.
    private mutating func normalise(_ name: String, _ input: String, _ norm: BatchNorm, swish: Bool) -> String {
        let (a, b) = ExportedBatchNorm.scaleAndShift(norm)
        let shifted = scaleAndShift(name, input: input, scale: a, shift: b)
        guard swish else { return shifted }
        return multiply("\(name).swish", shifted, sigmoid("\(name).sigmoid", input: shifted))
    }
}
