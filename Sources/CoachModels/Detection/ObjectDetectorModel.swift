import CoachData
import CoachNN
import Foundation

/// A trained (or freshly initialised) object detector: configuration, class labels and
/// the head, with the decoding that turns head outputs into boxes. It needs the shared
/// backbone to see images (`DetectorFeatureExtractor`).
///
/// Model file: task `object-detector`; `classLabels` in output order; `input.image` the
/// letterboxed input; `backbone` the EfficientNet-Lite0 file's name and SHA-256;
/// `extra.detector` the `DetectorConfiguration`, `extra.gridSize` `[columns, rows]` of the
/// finest level (Create ML's `gridSize`), `extra.gridSizes` every level's, `extra.boxCoding`
/// `anchor-free` or `anchors`; weights are the head's parameters under their dotted names
/// (`lateral32.weight`, `levels.0.blocks.0.norm1.scale`, …).
public final class ObjectDetectorModel {
    /// The network's shape.
    public let configuration: DetectorConfiguration
    /// Class labels in output order.
    public let classLabels: [String]
    /// The trainable head.
    public let head: DetectionHead
    /// The box coding of each output level.
    public let codings: [DetectionBoxCoding]

    /// The default confidence threshold for reported detections.
    public static let defaultConfidenceThreshold: Double = 0.5
    /// The default IoU above which overlapping boxes of one class are suppressed.
    public static let defaultIoUThreshold: Double = 0.45
    /// Detections kept per image at most (after non-maximum suppression).
    public static let maximumDetections = 100

    /// A new detector with a randomly initialised head.
    public init(configuration: DetectorConfiguration, classLabels: [String], generator: inout SeededGenerator) throws {
        var problems = configuration.problems
        if classLabels.count != configuration.classCount {
            problems.append("\(classLabels.count) class labels for \(configuration.classCount) classes")
        }
        if !problems.isEmpty { throw DetectorModelError.invalidConfiguration(problems) }
        self.configuration = configuration
        self.classLabels = classLabels
        self.head = DetectionHead(configuration: configuration, generator: &generator)
        self.codings = configuration.grids.map { DetectionBoxCoding(grid: $0) }
    }

    /// Rebuilds a detector from a model file (checking every tensor's name and shape).
    public convenience init(file: ModelFile) throws {
        let path = file.sourcePath ?? "model"
        guard file.metadata.task == .objectDetector else {
            throw DetectorModelError.wrongTask(path: path, task: file.metadata.task.rawValue)
        }
        guard let configuration = try file.metadata.extraValue("detector", as: DetectorConfiguration.self) else {
            throw ModelFileError.malformedMetadata(path: file.sourcePath, jsonPath: "$.extra.detector",
                                                   reason: "required key 'detector' (the detector configuration) is missing")
        }
        var generator = SeededGenerator(seed: 0)
        do {
            try self.init(configuration: configuration, classLabels: file.metadata.classLabels, generator: &generator)
        } catch DetectorModelError.invalidConfiguration(let problems) {
            // An edited or damaged file: say which file, and where in its metadata.
            throw ModelFileError.malformedMetadata(path: file.sourcePath, jsonPath: "$.extra.detector",
                                                   reason: "the detector configuration is inconsistent: " + problems.joined(separator: "; "))
        }
        try file.checkTensors(head.stateDictionary.mapValues(\.shape))
        try head.load(file.tensors)
    }

    /// The model file for this detector; `metadata` supplies name, training information and
    /// metrics, and is completed with task, labels, input, grid and configuration.
    public func modelFile(metadata base: ModelMetadata? = nil, backbone: BackboneReference) throws -> ModelFile {
        var metadata = base ?? ModelMetadata(task: .objectDetector)
        metadata.task = .objectDetector
        metadata.classLabels = classLabels
        metadata.backbone = backbone
        metadata.input = InputSpecification(image: ImageInputSpecification(
            width: configuration.inputWidth, height: configuration.inputHeight,
            mean: [127, 127, 127], standardDeviation: [128, 128, 128], resize: ImageResize(method: "letterbox")))
        metadata.extra["detector"] = try JSONValue(encoding: configuration)
        metadata.extra["gridSize"] = .array([.number(Double(configuration.gridSize.columns)),
                                             .number(Double(configuration.gridSize.rows))])
        metadata.extra["gridSizes"] = .array(configuration.grids.map { .array([.number(Double($0.gridWidth)), .number(Double($0.gridHeight))]) })
        metadata.extra["boxCoding"] = .string(configuration.usesAnchors ? "anchors" : "anchor-free")
        return ModelFile(metadata: metadata, tensors: head.stateDictionary)
    }

    /// Raw head outputs per level, [N, gridHeight, gridWidth, slots·(5+K)], for cached maps (inference mode).
    public func rawOutputs(_ maps: [DetectorFeatureMaps]) -> [Tensor] {
        let tape = Tape(mode: .inference, recordsGradients: false)
        return head(DetectorFeatureBatch(maps, configuration: configuration), tape: tape).map(\.value)
    }

    /// The detections of image `index` of `raws` (from `rawOutputs`), mapped back to the
    /// original image through `transform` and clipped to it: confidence ≥
    /// `confidenceThreshold`, per-class NMS at `iouThreshold`, most confident first.
    public func detections(in raws: [Tensor], index: Int, transform: LetterboxTransform,
                           confidenceThreshold: Double = defaultConfidenceThreshold,
                           iouThreshold: Double = defaultIoUThreshold,
                           maximumCount: Int = maximumDetections) -> [Detection] {
        var candidates: [Detection] = []
        for (raw, coding) in zip(raws, codings) {
            let perImage = raw.count / max(raw.shape[0], 1)
            candidates += raw.withUnsafeBufferPointer { p in
                coding.decodeAll(UnsafeBufferPointer(rebasing: p[(index * perImage)..<((index + 1) * perImage)]),
                                 confidenceThreshold: Float(confidenceThreshold))
            }
        }
        var mapped: [Detection] = []
        for var detection in candidates {
            let topLeft = transform.originalPoint(x: detection.box.minX, y: detection.box.minY)
            let bottomRight = transform.originalPoint(x: detection.box.maxX, y: detection.box.maxY)
            let box = BoundingBox(minX: topLeft.x, minY: topLeft.y, maxX: bottomRight.x, maxY: bottomRight.y)
            guard let clipped = box.clipped(width: transform.originalWidth, height: transform.originalHeight) else { continue }
            detection.box = clipped
            mapped.append(detection)
        }
        return NonMaximumSuppression.apply(mapped, iouThreshold: iouThreshold, maximumCount: maximumCount)
    }

    /// Detects objects in `image` (boxes in its pixels): encode, backbone, head, decode, NMS.
    public func detect(in image: RGBImage, extractor: DetectorFeatureExtractor,
                       confidenceThreshold: Double = defaultConfidenceThreshold,
                       iouThreshold: Double = defaultIoUThreshold) throws -> [Detection] {
        let (pixels, transform) = try extractor.encode(image)
        let raw = rawOutputs(extractor.maps(of: [pixels]))
        return detections(in: raw, index: 0, transform: transform, confidenceThreshold: confidenceThreshold,
                          iouThreshold: iouThreshold)
    }
}

/// Errors from building or loading an object detector.
public enum DetectorModelError: LocalizedError, Equatable {
    /// The configuration cannot be built (every problem listed).
    case invalidConfiguration([String])
    /// The file holds another kind of model.
    case wrongTask(path: String, task: String)

    /// A sentence saying what is wrong and what to do.
    public var errorDescription: String? {
        switch self {
        case .invalidConfiguration(let problems):
            return "invalid object-detector configuration: " + problems.joined(separator: "; ")
        case let .wrongTask(path, task):
            return "\(path): this is a '\(task)' model, not an object detector"
        }
    }
}
