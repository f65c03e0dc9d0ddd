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

/// One output level of the detector: a grid of `stride`-pixel cells with one prediction
/// slot per anchor (or a single anchor-free slot).
public struct DetectionLevel: Codable, Equatable, Sendable {
    /// Input pixels per cell: 16 or 32.
    public var stride: Int
    /// The level's anchors (input pixels); empty for the anchor-free coding.
    public var anchors: [AnchorSize]

    /// A level of `stride` with `anchors`.
    public init(stride: Int, anchors: [AnchorSize] = []) {
        self.stride = stride
        self.anchors = anchors
    }
}

/// The geometry of one output level for a given input: what box coding, slot assignment
/// and the loss need.
public struct DetectionGrid: Equatable, Sendable {
    /// Input pixels per cell.
    public var stride: Int
    /// The level's anchors (empty: anchor-free).
    public var anchors: [AnchorSize]
    /// Columns, ⌈W / stride⌉.
    public var gridWidth: Int
    /// Rows, ⌈H / stride⌉.
    public var gridHeight: Int
    /// The number of classes K.
    public var classCount: Int

    /// Prediction slots per cell (anchors, or 1 when anchor-free).
    public var slotsPerCell: Int { max(1, anchors.count) }
    /// Raw outputs per slot: 4 box values, 1 objectness, K class logits.
    public var valuesPerSlot: Int { 5 + classCount }
    /// Slots of one image.
    public var slotCount: Int { gridWidth * gridHeight * slotsPerCell }
    /// Whether boxes are coded relative to anchors (YOLOv2-style) rather than the cell centre.
    public var usesAnchors: Bool { !anchors.isEmpty }
}

/// The shape of an object detector: input size, output levels (grids and anchors) and head size.
///
/// Stored in the model file's metadata under `extra.detector` so the runtime rebuilds
/// exactly the network that was trained.
public struct DetectorConfiguration: Codable, Equatable, Sendable {
    /// Width of the input tensor W (images are letterboxed into it).
    public var inputWidth: Int
    /// Height of the input tensor H.
    public var inputHeight: Int
    /// The output levels, finest first: stride 16 and/or 32, each with its anchors.
    public var levels: [DetectionLevel]
    /// Channels inside the head.
    public var headWidth: Int
    /// Depthwise-separable residual blocks per level.
    public var headBlocks: Int
    /// The number of classes K.
    public var classCount: Int

    /// The default input side (Create ML's 416 × 416).
    public static let defaultInputSize = 416

    /// A configuration with the given levels; see the properties.
    public init(inputWidth: Int = DetectorConfiguration.defaultInputSize,
                inputHeight: Int = DetectorConfiguration.defaultInputSize,
                levels: [DetectionLevel], headWidth: Int = 96, headBlocks: Int = 2, classCount: Int) {
        self.inputWidth = inputWidth
        self.inputHeight = inputHeight
        self.levels = levels
        self.headWidth = headWidth
        self.headBlocks = headBlocks
        self.classCount = classCount
    }

    /// A single-level configuration: one grid of `stride` with `anchors` (none: anchor-free).
    public init(inputWidth: Int = DetectorConfiguration.defaultInputSize,
                inputHeight: Int = DetectorConfiguration.defaultInputSize,
                stride: Int = 16, anchors: [AnchorSize] = [], headWidth: Int = 96, headBlocks: Int = 2,
                classCount: Int) {
        self.init(inputWidth: inputWidth, inputHeight: inputHeight, levels: [DetectionLevel(stride: stride, anchors: anchors)],
                  headWidth: headWidth, headBlocks: headBlocks, classCount: classCount)
    }

    /// The grid of level `index`.
    public func grid(_ index: Int) -> DetectionGrid {
        let level = levels[index]
        return DetectionGrid(stride: level.stride, anchors: level.anchors,
                             gridWidth: (inputWidth + level.stride - 1) / level.stride,
                             gridHeight: (inputHeight + level.stride - 1) / level.stride, classCount: classCount)
    }

    /// The grids of every level, finest first.
    public var grids: [DetectionGrid] { levels.indices.map(grid) }

    /// Whether boxes are coded relative to anchors (YOLOv2-style) rather than the cell centre.
    public var usesAnchors: Bool { levels.contains { !$0.anchors.isEmpty } }

    /// The finest grid's size, Create ML's `gridSize` (columns, rows).
    public var gridSize: (columns: Int, rows: Int) {
        let finest = grid(0)
        return (finest.gridWidth, finest.gridHeight)
    }

    /// Every reason this configuration cannot be built, empty when it is valid.
    public var problems: [String] {
        var result: [String] = []
        if inputWidth < 64 || inputHeight < 64 || inputWidth > 2048 || inputHeight > 2048 {
            result.append("input size \(inputWidth)×\(inputHeight) must be within 64…2048 pixels per side")
        }
        if inputWidth % 32 != 0 || inputHeight % 32 != 0 {
            result.append("input size \(inputWidth)×\(inputHeight) must be a multiple of 32 (the backbone's stride)")
        }
        let strides = levels.map(\.stride)
        if strides.isEmpty || strides.contains(where: { $0 != 16 && $0 != 32 }) || Set(strides).count != strides.count
            || strides != strides.sorted() {
            result.append("levels \(strides) must be strides 16 and/or 32, finest first, each once")
        }
        if levels.count > 1 && levels.contains(where: { $0.anchors.isEmpty }) {
            result.append("several levels need anchors on every level")
        }
        if headWidth < 1 || headBlocks < 0 { result.append("head width \(headWidth) and blocks \(headBlocks) must be positive") }
        if classCount < 1 { result.append("a detector needs at least one class") }
        if levels.contains(where: { $0.anchors.contains { !($0.width > 0 && $0.height > 0) } }) {
            result.append("anchor sizes must be positive")
        }
        return result
    }
}
