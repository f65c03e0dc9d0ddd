import CoachData
import Foundation

/// Turns images into the backbone's pooled features [N, 1280] with a model's input
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
    /// Images per backbone call (default 1; see above).
    public var batchSize: Int

    /// An extractor over `backbone` with `encoding`.
    public init(backbone: Backbone, encoding: ImageInputEncoding = .efficientNetLite0, batchSize: Int = 1) {
        self.backbone = backbone
        self.encoding = encoding
        self.batchSize = max(1, batchSize)
    }

    /// Features [encoded.count, 1280] of already encoded images (see `ImageInputEncoding.encode`).
    public func features(encoded: [[Float]]) -> Tensor {
        guard !encoded.isEmpty else { return Tensor.zeros([0, EfficientNetLite0.featureCount]) }
        var scalars: [Float] = []
        scalars.reserveCapacity(encoded.count * EfficientNetLite0.featureCount)
        var start = 0
        while start < encoded.count {
            let end = min(encoded.count, start + batchSize)
            scalars += backbone.network.features(encoding.batch(Array(encoded[start..<end]))).scalars
            start = end
        }
        return Tensor(shape: [encoded.count, EfficientNetLite0.featureCount], scalars: scalars)
    }

    /// Features [images.count, 1280] of decoded images.
    public func features(for images: [RGBImage]) throws -> Tensor {
        features(encoded: try images.map(encoding.encode))
    }
}
