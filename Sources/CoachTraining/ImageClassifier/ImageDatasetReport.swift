import CoachData
import Foundation

/// What the trainer found in the data before training (also emitted as notes and warnings).
public struct ImageDatasetReport: Equatable, Sendable {
    /// Class labels in model order.
    public var labels: [String]
    /// Usable training images per label (after decoding).
    public var trainingCounts: [String: Int]
    /// Usable validation images per label (held out or given).
    public var validationCounts: [String: Int]
    /// Usable test images per label (from a `test/` split).
    public var testCounts: [String: Int]
    /// Hidden and non-image files that were ignored.
    public var ignoredFiles: [String]
    /// Image files that could not be decoded and were skipped, with the reason.
    public var skippedFiles: [String]
    /// Files whose exact bytes appear both in training and in validation or test data.
    public var duplicates: [String]
    /// Whether the validation images were held out from the training folder (seeded, stratified).
    public var validationIsHeldOut: Bool
    /// Warnings (few images, imbalance, duplicates, …).
    public var warnings: [String]
}

extension ImageDatasetReport {
    /// Counts of `files` per label.
    static func counts(_ files: [LabeledImageFile]) -> [String: Int] {
        files.reduce(into: [:]) { $0[$1.label, default: 0] += 1 }
    }

    /// Warnings for classes under 10 images and imbalance over 10:1.
    static func countWarnings(_ counts: [String: Int], labels: [String]) -> [String] {
        var warnings: [String] = []
        let small = labels.filter { (counts[$0] ?? 0) < 10 }
        if !small.isEmpty {
            // Named up to `named` at a time: a set of 40 people with a photo or two each is one line.
            let named = 8, sizes = small.map { counts[$0] ?? 0 }
            let fewest = sizes.min()!, most = sizes.max()!
            let which = small.count == labels.count && small.count > named
                ? "every one of the \(small.count) classes has fewer than 10 training images (\(fewest == most ? "\(most)" : "\(fewest)–\(most)") each)"
                : "class\(small.count == 1 ? "" : "es") with fewer than 10 training images: "
                    + small.prefix(named).map { "\($0) (\(counts[$0] ?? 0))" }.joined(separator: ", ")
                    + (small.count > named ? " and \(small.count - named) more" : "")
            warnings.append(which + "; add more images for a reliable classifier")
        }
        let present = labels.map { counts[$0] ?? 0 }.filter { $0 > 0 }
        if let largest = present.max(), let smallest = present.min(), smallest > 0, largest > 10 * smallest {
            let big = labels.first { counts[$0] == largest }!, little = labels.first { counts[$0] == smallest }!
            warnings.append("the classes are imbalanced more than 10:1 (\(big): \(largest) images, \(little): \(smallest)); the classifier will favour the large classes")
        }
        return warnings
    }

    /// Lines describing the classes and counts, for people.
    public var summaryLines: [String] {
        let width = max(5, labels.map(\.terminalWidth).max() ?? 5)
        var lines = ["classes: \(labels.count)"]
        let hasTest = !testCounts.isEmpty
        lines.append("  " + "class".padded(toWidth: width) + "  training  validation" + (hasTest ? "  test" : ""))
        for label in labels {
            var line = "  " + label.padded(toWidth: width)
            line += "  " + pad(trainingCounts[label] ?? 0, 8) + "  " + pad(validationCounts[label] ?? 0, 10)
            if hasTest { line += "  " + pad(testCounts[label] ?? 0, 4) }
            lines.append(line)
        }
        let totals = "  " + "total".padded(toWidth: width) + "  "
            + pad(trainingCounts.values.reduce(0, +), 8) + "  " + pad(validationCounts.values.reduce(0, +), 10)
            + (hasTest ? "  " + pad(testCounts.values.reduce(0, +), 4) : "")
        lines.append(totals)
        if validationIsHeldOut {
            lines.append(validationCounts.values.reduce(0, +) > 0
                ? "validation: a seeded, stratified hold-out of the training folder"
                : "validation: none held out (a class needs 2 or more training images to lend one)")
        }
        return lines
    }

    private func pad(_ number: Int, _ width: Int) -> String {
        let text = "\(number)"
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
