import CoachRandom
import Foundation

/// Images with labelled boxes for training or evaluating an object detector.
///
/// Boxes are in pixels of the displayed image (EXIF orientation applied), origin
/// top-left; boxes that stick out of the image by at most 1 px are clipped to it. Labels
/// are the sorted set of labels the boxes use.
public struct DetectionDataset: Sendable {
    /// The annotation file or folder the dataset was read from.
    public var source: URL
    /// The annotation format it was read in.
    public var format: DetectionAnnotationFormat
    /// The images, in annotation-file order.
    public var images: [AnnotatedImage]
    /// Non-fatal findings (duplicate entries merged, boxes clipped, ignored files).
    public var warnings: [DetectionDataProblem]

    /// A dataset of `images` read from `source`.
    public init(source: URL, format: DetectionAnnotationFormat, images: [AnnotatedImage],
                warnings: [DetectionDataProblem] = []) {
        self.source = source
        self.format = format
        self.images = images
        self.warnings = warnings
    }

    /// The sorted set of labels used by the boxes.
    public var labels: [String] {
        Set(images.flatMap { $0.objects.map(\.label) }).sorted()
    }

    /// The number of boxes per label.
    public var objectCounts: [String: Int] {
        var counts: [String: Int] = [:]
        for image in images { for object in image.objects { counts[object.label, default: 0] += 1 } }
        return counts
    }

    /// The number of boxes.
    public var objectCount: Int { images.reduce(0) { $0 + $1.objects.count } }

    /// The number of images without boxes.
    public var negativeImageCount: Int { images.filter(\.isNegative).count }

    /// A seeded split: `validationFraction` of the images (rounded, at least one when the
    /// fraction is positive and there are two or more images) go to the second dataset.
    public func split(validationFraction: Double, using generator: inout SeededGenerator)
        -> (training: DetectionDataset, validation: DetectionDataset)
    {
        var order = Array(images.indices)
        generator.shuffle(&order)
        var count = Int((Double(images.count) * validationFraction).rounded())
        if validationFraction > 0 && images.count >= 2 { count = min(max(count, 1), images.count - 1) }
        let validation = Set(order.prefix(count))
        var training = self, held = self
        training.images = images.indices.filter { !validation.contains($0) }.map { images[$0] }
        held.images = images.indices.filter { validation.contains($0) }.map { images[$0] }
        return (training, held)
    }
}
