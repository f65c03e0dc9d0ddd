import CoachData
import Foundation

/// The dataset report printed before training or evaluation: images, negatives, boxes
/// per label with their typical sizes, and warnings.
public struct DetectionDatasetSummary: Codable, Equatable, Sendable {
    /// One label's numbers.
    public struct LabelSummary: Codable, Equatable, Sendable {
        /// The label.
        public var label: String
        /// Boxes with this label.
        public var count: Int
        /// Images with at least one such box.
        public var imageCount: Int
        /// Median box width as a fraction of the image's width.
        public var medianRelativeWidth: Double
        /// Median box height as a fraction of the image's height.
        public var medianRelativeHeight: Double
    }

    /// The annotation file or folder.
    public var source: String
    /// Its format.
    public var format: String
    /// Images listed.
    public var imageCount: Int
    /// Images without boxes.
    public var negativeImageCount: Int
    /// Boxes in total.
    public var objectCount: Int
    /// Per label, sorted by label.
    public var labels: [LabelSummary]
    /// Distinct image sizes, most frequent first ("660×720 (149)").
    public var imageSizes: [String]
    /// Non-fatal findings.
    public var warnings: [String]

    /// The summary of `dataset`.
    public init(_ dataset: DetectionDataset) {
        source = dataset.source.path
        format = dataset.format.displayName
        imageCount = dataset.images.count
        negativeImageCount = dataset.negativeImageCount
        objectCount = dataset.objectCount
        var widths: [String: [Double]] = [:], heights: [String: [Double]] = [:], images: [String: Int] = [:]
        for image in dataset.images {
            for label in Set(image.objects.map(\.label)) { images[label, default: 0] += 1 }
            for object in image.objects {
                widths[object.label, default: []].append(object.box.width / Double(image.width))
                heights[object.label, default: []].append(object.box.height / Double(image.height))
            }
        }
        func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.sorted()[values.count / 2] }
        labels = dataset.labels.map { label in
            LabelSummary(label: label, count: widths[label]?.count ?? 0, imageCount: images[label] ?? 0,
                         medianRelativeWidth: median(widths[label] ?? []), medianRelativeHeight: median(heights[label] ?? []))
        }
        var sizes: [String: Int] = [:]
        for image in dataset.images { sizes["\(image.width)×\(image.height)", default: 0] += 1 }
        imageSizes = sizes.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { "\($0.key) (\($0.value))" }
        warnings = dataset.warnings.map(\.description)
    }

    /// Text lines for people.
    public var lines: [String] {
        var result = ["\(source) (\(format)): \(imageCount) images, \(objectCount) boxes, \(negativeImageCount) negative image\(negativeImageCount == 1 ? "" : "s")"]
        let width = max(5, labels.map(\.label.terminalWidth).max() ?? 5)
        result.append("  " + "label".padded(toWidth: width) + "  boxes  images  median size (of image)")
        for l in labels {
            result.append("  " + l.label.padded(toWidth: width)
                          + String(format: "  %5d  %6d  %.0f%% × %.0f%%", l.count, l.imageCount,
                                   l.medianRelativeWidth * 100, l.medianRelativeHeight * 100))
        }
        result.append("  image sizes: " + imageSizes.prefix(5).joined(separator: ", ") + (imageSizes.count > 5 ? ", …" : ""))
        return result
    }
}
