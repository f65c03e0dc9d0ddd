import CoachTraining
import Foundation

/// Text tables for object-detection results.
enum DetectionMetricsTable {
    /// mAP lines, the per-class table and the confusion matrix with background.
    static func render(_ m: DetectionMetrics) -> String {
        func number(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "n/a" }
        var lines: [String] = []
        lines.append("mAP@0.5 (I/O 50): \(number(m.meanAveragePrecision50)) · mAP@0.5:0.95 (varied I/O): \(number(m.meanAveragePrecision)) · \(m.imageCount) images")
        lines.append("")
        let width = max(5, m.classes.map(\.count).max() ?? 5)
        lines.append(MetricsTable.pad("class", width, left: false) + "   AP@0.5  AP@.5:.95  precision  recall  boxes  detections")
        for c in m.perClass {
            lines.append(MetricsTable.pad(c.label, width, left: false) + "  "
                         + MetricsTable.pad(number(c.ap50), 7) + "  " + MetricsTable.pad(number(c.ap), 9) + "  "
                         + MetricsTable.pad(String(format: "%.3f", c.precision), 9) + "  "
                         + MetricsTable.pad(String(format: "%.3f", c.recall), 6) + "  "
                         + MetricsTable.pad("\(c.groundTruthCount)", 5) + "  " + MetricsTable.pad("\(c.predictionCount)", 10))
        }
        lines.append("(precision, recall and the matrix: confidence ≥ \(m.confidenceThreshold), IoU ≥ \(m.matchingIoU))")
        lines.append("")
        let names = m.classes + ["background"]
        lines.append(MetricsTable.confusionMatrix(classes: names, counts: m.confusionMatrix))
        return lines.joined(separator: "\n")
    }
}
