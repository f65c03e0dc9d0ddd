import CoachModels
import Foundation

/// How boxes are coded by the head being trained.
public enum DetectorBoxCodingChoice: String, Codable, Equatable, Sendable, CaseIterable {
    /// One slot per cell, boxes centred near the cell (FCOS-style centre sampling).
    case anchorFree = "anchor-free"
    /// YOLOv2-style anchors from k-means on the training boxes.
    case anchors
}

/// Everything that decides an object-detector training run (recorded in the model file).
public struct ObjectDetectorTrainingConfiguration: Codable, Equatable, Sendable {
    /// The input side in pixels (square, a multiple of 32; Create ML's default 416).
    public var inputSize: Int
    /// Training iterations (batches); nil picks `automaticIterations(viewCount:)`.
    public var maximumIterations: Int?
    /// Views per batch.
    public var batchSize: Int
    /// Augmentation names (see CoachData's `Augmentation`), applied to every view but the first.
    public var augmentations: [String]
    /// Views per training image whose backbone maps are cached: the original plus
    /// `viewsPerImage − 1` augmented ones.
    public var viewsPerImage: Int
    /// The seed every random choice derives from.
    public var seed: UInt64
    /// The head's box coding.
    public var boxCoding: DetectorBoxCodingChoice
    /// Anchors for `.anchors` (k-means on the training boxes).
    public var anchorCount: Int
    /// Output levels' strides, finest first: 16 (grid size/16) and/or 32 (Create ML's 13 × 13
    /// at 416). With anchors on two levels, anchors of at least 64 × 64 pixels (area) go to
    /// stride 32 and the smaller ones to stride 16. Anchor-free boxes use the finest stride.
    public var strides: [Int]
    /// Channels inside the head.
    public var headWidth: Int
    /// Residual blocks in the head.
    public var headBlocks: Int
    /// Peak learning rate of AdamW (linear warm-up over the first 5 %, then cosine decay to 2 %).
    public var learningRate: Double
    /// AdamW's decoupled weight decay.
    public var weightDecay: Double

    /// Memory the cached training views may take (2.5 GB); beyond it, fewer views per image are cached.
    public static let viewCacheBudgetBytes = 2_500_000_000

    /// Views per image actually cached for `imageCount` images: `viewsPerImage`, reduced
    /// (never below 1) so the cache stays within `viewCacheBudgetBytes` (about 4,200 views
    /// at 416², so up to ~530 images keep all 8 views).
    public func cachedViewsPerImage(imageCount: Int) -> Int {
        let cells = (inputSize / 32) * (inputSize / 32)
        let bytesPerView = 2 * cells * (1280 + 4 * 112)
        let affordable = Self.viewCacheBudgetBytes / max(1, bytesPerView * max(1, imageCount))
        return max(1, min(viewsPerImage, affordable))
    }

    /// The augmentations used by default: the ones that keep a board a board.
    public static let defaultAugmentations = ["flip", "crop", "translate", "exposure", "contrast", "saturation", "blur", "noise"]

    /// A configuration; the defaults are Coach's recommended settings.
    public init(inputSize: Int = DetectorConfiguration.defaultInputSize, maximumIterations: Int? = nil,
                batchSize: Int = 16, augmentations: [String] = ObjectDetectorTrainingConfiguration.defaultAugmentations,
                viewsPerImage: Int = 8, seed: UInt64 = 0, boxCoding: DetectorBoxCodingChoice = .anchors,
                anchorCount: Int = 5, strides: [Int] = [16, 32], headWidth: Int = 96, headBlocks: Int = 2,
                learningRate: Double = 2e-3, weightDecay: Double = 5e-4) {
        self.inputSize = inputSize
        self.maximumIterations = maximumIterations
        self.batchSize = batchSize
        self.augmentations = augmentations
        self.viewsPerImage = viewsPerImage
        self.seed = seed
        self.boxCoding = boxCoding
        self.anchorCount = anchorCount
        self.strides = strides
        self.headWidth = headWidth
        self.headBlocks = headBlocks
        self.learningRate = learningRate
        self.weightDecay = weightDecay
    }

    /// Iterations when none are given: about 14 passes over the cached views, at least 400
    /// and at most 2400 (on the cornhole photos, 119 images × 8 views: 833 iterations; with a
    /// single stride-16 level, 400 and 1500 iterations measured AP50 0.947 and 0.954 against
    /// 0.954 at 800).
    public func automaticIterations(viewCount: Int) -> Int {
        min(2400, max(400, (14 * viewCount + batchSize - 1) / max(1, batchSize)))
    }

    /// Every reason the configuration cannot be used, empty when it can.
    public var problems: [String] {
        var result: [String] = []
        if inputSize < 64 || inputSize > 2048 || inputSize % 32 != 0 {
            result.append("--input-size \(inputSize) must be a multiple of 32 between 64 and 2048")
        }
        if let m = maximumIterations, m < 1 { result.append("--max-iterations must be at least 1") }
        if batchSize < 1 || batchSize > 256 { result.append("--batch-size \(batchSize) must be within 1…256") }
        if viewsPerImage < 1 || viewsPerImage > 64 { result.append("views per image \(viewsPerImage) must be within 1…64") }
        if strides.isEmpty || strides.contains(where: { $0 != 16 && $0 != 32 }) || Set(strides).count != strides.count {
            result.append("strides \(strides) must be 16 and/or 32, each once")
        }
        if boxCoding == .anchors && (anchorCount < 1 || anchorCount > 16) { result.append("anchor count must be within 1…16") }
        if headWidth < 8 || headBlocks < 0 { result.append("head width must be ≥ 8 and blocks ≥ 0") }
        if !(learningRate > 0) { result.append("learning rate must be positive") }
        return result
    }
}
