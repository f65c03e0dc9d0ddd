import CoachData
import Foundation

/// Which of the backbone's activations an image's features average over the image.
public enum ImageFeatureLayers: String, Codable, CaseIterable, Sendable {
    /// The head's 1,280 activations: the features Create ML's, Keras' and the peers' transfer
    /// learning read (models written before `headAndStride16` existed read these).
    case head
    /// The head's 1,280 and, after them, the 112 channels of the stride-16 map (block 10's
    /// output, the map the detector reads too): 1,392 values. The middle of the network still
    /// describes textures, parts and shapes that ImageNet's last layers have pooled into
    /// ImageNet's own categories, which is what photos unlike ImageNet's need.
    case headAndStride16 = "head+stride16"

    /// Values per image.
    public var width: Int {
        switch self {
        case .head: return EfficientNetLite0.featureCount
        case .headAndStride16: return EfficientNetLite0.featureCount + EfficientNetLite0.stride16Channels
        }
    }
}

/// Turns images into the backbone's pooled features [N, `layers.width`] with a model's input
/// encoding; shared by training, evaluation and the runtime.
///
/// By default every image runs through the backbone on its own (batch 1): an image's
/// features then do not depend on which other images shared its batch (batched GEMMs
/// round differently in the last bits), so cached and freshly computed features — and
/// so trained models — are bit-identical. Batching gains only ~5 % here, because the
/// network already runs its large early layers one image at a time.
public struct ImageFeatureExtractor {
    /// The backbone network and its identity.
    public let backbone: Backbone
    /// How images become backbone input.
    public let encoding: ImageInputEncoding
    /// The activations the features average.
    public let layers: ImageFeatureLayers
    /// Images per backbone call (default 1; see above).
    public var batchSize: Int

    /// An extractor over `backbone` with `encoding`, averaging `layers`.
    public init(backbone: Backbone, encoding: ImageInputEncoding = .efficientNetLite0, layers: ImageFeatureLayers = .head,
                batchSize: Int = 1) {
        self.backbone = backbone
        self.encoding = encoding
        self.layers = layers
        self.batchSize = max(1, batchSize)
    }

    /// Features [encoded.count, `layers.width`] of already encoded images (see `ImageInputEncoding.encode`).
    public func features(encoded: [[Float]]) -> Tensor {
        let width = layers.width
        guard !encoded.isEmpty else { return Tensor.zeros([0, width]) }
        var scalars: [Float] = []
        scalars.reserveCapacity(encoded.count * width)
        var start = 0
        while start < encoded.count {
            let end = min(encoded.count, start + batchSize)
            let batch = encoding.batch(Array(encoded[start..<end]))
            switch layers {
            case .head:
                scalars += backbone.network.features(batch).scalars
            case .headAndStride16:
                let result = backbone.network.forward(batch, keeping: .stride16)
                let head = result.features.scalars, map = result.stride16!
                let channels = EfficientNetLite0.stride16Channels, cells = map.count / (channels * (end - start))
                map.withUnsafeBufferPointer { values in
                    for image in 0..<(end - start) {
                        scalars += head[(image * EfficientNetLite0.featureCount)..<((image + 1) * EfficientNetLite0.featureCount)]
                        var pooled = [Float](repeating: 0, count: channels)
                        for cell in 0..<cells {
                            let base = (image * cells + cell) * channels
                            for channel in 0..<channels { pooled[channel] += values[base + channel] }
                        }
                        scalars += pooled.map { $0 / Float(cells) }
                    }
                }
            }
            start = end
        }
        return Tensor(shape: [encoded.count, width], scalars: scalars)
    }

    /// Features [images.count, `layers.width`] of decoded images.
    public func features(for images: [RGBImage]) throws -> Tensor {
        features(encoded: try images.map(encoding.encode))
    }
}
