import CoachRandom
import Foundation

/// One step of a pipeline: an augmentation and the probability it is applied.
public struct AugmentationStep: Equatable, Sendable {
    /// The augmentation and its parameter range.
    public var augmentation: Augmentation
    /// The chance (0...1) that a given view gets this step.
    public var probability: Float

    /// A step applied with `probability` (default: the augmentation's `defaultProbability`).
    public init(_ augmentation: Augmentation, probability: Float? = nil) {
        self.augmentation = augmentation
        self.probability = probability ?? augmentation.defaultProbability
    }
}

/// A seeded, composable augmentation pipeline over images with optional boxes and keypoints.
///
/// For each view, every step is kept with its probability and its parameters are drawn
/// (`Augmentation.draw`), in step order, from the generator passed in; the same generator
/// state gives the same view. All geometric steps are then composed into one affine map
/// and the image is resampled once (bilinear, uncovered areas `fillValue`); the
/// photometric steps follow in their order. Pixels are computed in float and rounded to
/// 8 bits once, at the end.
///
/// Boxes move with the pixels: the four corners of each box go through the map, the box
/// becomes their bounding box, clipped to the image. A box survives when its clipped area
/// is at least `minimumVisibleFraction` of its transformed, unclipped area and both its
/// clipped sides are at least `minimumSide` pixels; otherwise it is dropped (a box mostly
/// cut away by a crop or shift). After a rotation the axis-aligned box encloses the rotated
/// object, so it is somewhat larger than the object (by up to `|sin 2θ|/2` of the longer
/// side at angle θ).
public struct AugmentationPipeline: Equatable, Sendable {
    /// The steps, in order.
    public var steps: [AugmentationStep]
    /// A box must keep at least this fraction of its area inside the image (default 0.25).
    public var minimumVisibleFraction: Double
    /// A box's clipped width and height must be at least this many pixels (default 2).
    public var minimumSide: Double
    /// Value (0...255) for pixels the geometric map uncovers (default 127: mid grey, which
    /// EfficientNet-Lite's normalisation maps to 0).
    public var fillValue: Float

    /// A pipeline of `steps`.
    public init(steps: [AugmentationStep], minimumVisibleFraction: Double = 0.25, minimumSide: Double = 2,
                fillValue: Float = 127) {
        self.steps = steps
        self.minimumVisibleFraction = minimumVisibleFraction
        self.minimumSide = minimumSide
        self.fillValue = fillValue
    }

    /// A pipeline from a comma-separated list such as `flip,rotate,crop,blur,exposure,noise`
    /// (see `Augmentation` for the names and their default ranges; `none` or an empty
    /// string gives an empty pipeline). Steps keep the list's order; each is applied with
    /// `probability`, or its own default when nil. Throws listing every unknown name.
    public init(parsing list: String, probability: Float? = nil) throws {
        let names = AugmentationPipeline.splitNames(list)
        var unknown: [String] = [], duplicates: [String] = [], steps: [AugmentationStep] = []
        for name in names {
            guard let augmentation = Augmentation.defaults(named: name) else {
                unknown.append(name)
                continue
            }
            if steps.contains(where: { $0.augmentation.name == augmentation.name }) {
                duplicates.append(augmentation.name)
                continue
            }
            steps.append(AugmentationStep(augmentation, probability: probability))
        }
        if !unknown.isEmpty { throw AugmentationError.unknownNames(unknown) }
        if !duplicates.isEmpty { throw AugmentationError.duplicateNames(duplicates) }
        if let probability, !(0...1).contains(probability) {
            throw AugmentationError.invalidProbability(name: list, value: probability)
        }
        self.init(steps: steps)
    }

    /// The names in a comma-separated list (trimmed, empty entries and `none` dropped).
    static func splitNames(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && $0.lowercased() != "none" }
    }

    /// Whether the pipeline has no steps.
    public var isEmpty: Bool { steps.isEmpty }

    /// Draws one view's operations for a `width × height` image: each step is kept with
    /// its probability (one uniform draw per step), then its parameters are drawn.
    public func drawOperations(width: Int, height: Int, using generator: inout SeededGenerator) -> [AugmentationOperation] {
        var operations: [AugmentationOperation] = []
        for step in steps {
            let keep = step.probability >= 1 || generator.nextUniform() < step.probability
            if keep { operations.append(step.augmentation.draw(width: width, height: height, using: &generator)) }
        }
        return operations
    }

    /// One augmented view of `sample`, its random choices drawn from `generator`.
    public func apply(to sample: AugmentationSample, using generator: inout SeededGenerator) -> AugmentedSample {
        let operations = drawOperations(width: sample.image.width, height: sample.image.height, using: &generator)
        return apply(operations, to: sample)
    }

    /// Applies already drawn `operations` to `sample` (deterministic).
    public func apply(_ operations: [AugmentationOperation], to sample: AugmentationSample) -> AugmentedSample {
        let width = sample.image.width, height = sample.image.height
        let transform = AugmentationPipeline.composedTransform(operations, width: width, height: height)
        var image = sample.image
        if !operations.isEmpty, let adjusted = try? applyPixels(operations, transform: transform,
                                                                  to: FloatImage(sample.image)).rgbImage() {
            image = adjusted
        }
        var boxes: [BoundingBox] = [], sources: [Int] = []
        for (index, box) in sample.boxes.enumerated() {
            if let moved = mapBox(box, by: transform, width: width, height: height) {
                boxes.append(moved)
                sources.append(index)
            }
        }
        return AugmentedSample(image: image, boxes: boxes, boxSourceIndices: sources,
                               keypoints: sample.keypoints.map(transform.apply(to:)),
                               transform: transform, operations: operations)
    }

    /// Applies `operations` to a float image (0...255 units): one warp for the geometric
    /// ones, then the photometric ones in order.
    public func apply(_ operations: [AugmentationOperation], to image: FloatImage) -> FloatImage {
        let transform = AugmentationPipeline.composedTransform(operations, width: image.width, height: image.height)
        return applyPixels(operations, transform: transform, to: image)
    }

    /// The geometric operations composed in order into one map.
    public static func composedTransform(_ operations: [AugmentationOperation], width: Int,
                                         height: Int) -> AffineTransform {
        operations.filter(\.isGeometric).reduce(AffineTransform.identity) {
            $0.followed(by: $1.transform(width: width, height: height))
        }
    }

    /// Where `box` lands under `transform` in a `width × height` image, or nil when it is
    /// dropped by the visibility rule.
    public func mapBox(_ box: BoundingBox, by transform: AffineTransform, width: Int, height: Int) -> BoundingBox? {
        let moved = transform.apply(to: box)
        guard moved.area > 0, let clipped = moved.clipped(width: width, height: height) else { return nil }
        guard clipped.area >= minimumVisibleFraction * moved.area,
              clipped.width >= minimumSide, clipped.height >= minimumSide else { return nil }
        return clipped
    }

    private func applyPixels(_ operations: [AugmentationOperation], transform: AffineTransform,
                             to input: FloatImage) -> FloatImage {
        var image = transform.isIdentity ? input : input.warped(by: transform, fillValue: fillValue)
        for operation in operations {
            switch operation {
            case .horizontalFlip, .rotation, .crop, .translation:
                continue
            case let .exposure(stops):
                image = image.adjustingExposure(stops: stops)
            case let .contrast(factor):
                image = image.adjustingContrast(factor: factor)
            case let .saturation(factor):
                image = image.adjustingSaturation(factor: factor)
            case let .gaussianBlur(sigma):
                image = image.blurred(sigma: sigma)
            case let .gaussianNoise(standardDeviation, seed):
                var noiseGenerator = SeededGenerator(seed: seed)
                image = image.addingNoise(standardDeviation: standardDeviation, using: &noiseGenerator)
            }
        }
        return image
    }
}
