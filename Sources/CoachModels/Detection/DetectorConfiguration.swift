import Foundation

/// The width and height of an anchor box, in input-tensor pixels.
public struct AnchorSize: Codable, Equatable, Hashable, Sendable {
    /// Width in pixels of the (letterboxed) input.
    public var width: Double
    /// Height in pixels of the (letterboxed) input.
    public var height: Double

    /// An anchor of `width × height` input pixels.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// The shape of an object detector: input size, output grid, box coding and head size.
///
/// Stored in the model file's metadata under `extra.detector` so the runtime rebuilds
/// exactly the network that was trained.
public struct DetectorConfiguration: Codable, Equatable, Sendable {
    /// Width of the input tensor W (images are letterboxed into it).
    public var inputWidth: Int
    /// Height of the input tensor H.
    public var inputHeight: Int
    /// Input pixels per output cell: 16 (grid ⌈W/16⌉ × ⌈H/16⌉) or 32 (Create ML's 13 × 13 at 416).
    public var stride: Int
    /// Anchor boxes, one prediction slot per cell and anchor; empty for the anchor-free,
    /// centre-based coding (one slot per cell).
    public var anchors: [AnchorSize]
    /// Channels inside the head.
    public var headWidth: Int
    /// Depthwise-separable residual blocks in the head.
    public var headBlocks: Int
    /// The number of classes K.
    public var classCount: Int

    /// The default input side (Create ML's 416 × 416).
    public static let defaultInputSize = 416

    /// A configuration; see the properties.
    public init(inputWidth: Int = DetectorConfiguration.defaultInputSize,
                inputHeight: Int = DetectorConfiguration.defaultInputSize,
                stride: Int = 16, anchors: [AnchorSize] = [], headWidth: Int = 96, headBlocks: Int = 2,
                classCount: Int) {
        self.inputWidth = inputWidth
        self.inputHeight = inputHeight
        self.stride = stride
        self.anchors = anchors
        self.headWidth = headWidth
        self.headBlocks = headBlocks
        self.classCount = classCount
    }

    /// Prediction slots per cell (anchors, or 1 when anchor-free).
    public var slotsPerCell: Int { max(1, anchors.count) }
    /// Raw outputs per slot: 4 box values, 1 objectness, K class logits.
    public var valuesPerSlot: Int { 5 + classCount }
    /// Output grid columns, ⌈W / stride⌉ (Create ML's `gridSize` width).
    public var gridWidth: Int { (inputWidth + stride - 1) / stride }
    /// Output grid rows, ⌈H / stride⌉.
    public var gridHeight: Int { (inputHeight + stride - 1) / stride }
    /// Whether boxes are coded relative to anchors (YOLOv2-style) rather than the cell centre.
    public var usesAnchors: Bool { !anchors.isEmpty }

    /// Every reason this configuration cannot be built, empty when it is valid.
    public var problems: [String] {
        var result: [String] = []
        if inputWidth < 64 || inputHeight < 64 || inputWidth > 2048 || inputHeight > 2048 {
            result.append("input size \(inputWidth)×\(inputHeight) must be within 64…2048 pixels per side")
        }
        if inputWidth % 32 != 0 || inputHeight % 32 != 0 {
            result.append("input size \(inputWidth)×\(inputHeight) must be a multiple of 32 (the backbone's stride)")
        }
        if stride != 16 && stride != 32 { result.append("stride \(stride) must be 16 or 32") }
        if headWidth < 1 || headBlocks < 0 { result.append("head width \(headWidth) and blocks \(headBlocks) must be positive") }
        if classCount < 1 { result.append("a detector needs at least one class") }
        if anchors.contains(where: { !($0.width > 0 && $0.height > 0) }) { result.append("anchor sizes must be positive") }
        return result
    }
}
