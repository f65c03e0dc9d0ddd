import CoachData
import CoachTraining

/// Text tables for evaluation results.
enum MetricsTable {
    /// Pads `text` on the left (numbers) or right (labels) to `width` terminal columns.
    static func pad(_ text: String, _ width: Int, left: Bool = true) -> String {
        text.padded(toWidth: width, left: left)
    }

    /// Accuracy, the per-class table and the confusion matrix (rows true, columns predicted).
    static func render(_ m: ClassificationMetrics) -> String {
        var lines: [String] = []
        lines.append("accuracy: \(Console.percent(m.accuracy)) (\(m.count) examples) · balanced accuracy \(Console.percent(m.balancedAccuracy)) · macro F1 \(String(format: "%.3f", m.macroF1))")
        lines.append("")
        let labelWidth = max(5, m.classes.map(\.terminalWidth).max() ?? 5)
        lines.append(pad("class", labelWidth, left: false) + "  precision  recall     f1  support")
        for c in m.perClass {
            lines.append(pad(c.label, labelWidth, left: false) + "  "
                         + pad(String(format: "%.3f", c.precision), 9) + "  " + pad(String(format: "%.3f", c.recall), 6)
                         + "  " + pad(String(format: "%.3f", c.f1), 5) + "  " + pad("\(c.support)", 7))
        }
        lines.append("")
        lines.append(confusionMatrix(classes: m.classes, counts: m.confusionMatrix))
        return lines.joined(separator: "\n")
    }

    /// A confusion matrix with class names on both axes (rows true, columns predicted).
    static func confusionMatrix(classes: [String], counts: [[Int]], rowClasses: [String]? = nil) -> String {
        let rows = rowClasses ?? classes
        let rowWidth = max("true \\ predicted".count, rows.map(\.terminalWidth).max() ?? 0)
        let widths = classes.enumerated().map { j, name in
            max(name.terminalWidth, counts.map { $0.indices.contains(j) ? "\($0[j])".count : 1 }.max() ?? 1)
        }
        var lines = ["confusion matrix (rows: true class, columns: predicted class)"]
        lines.append(pad("true \\ predicted", rowWidth, left: false) + "  "
                     + zip(classes, widths).map { pad($0, $1) }.joined(separator: "  "))
        for (i, name) in rows.enumerated() {
            lines.append(pad(name, rowWidth, left: false) + "  "
                         + widths.enumerated().map { j, w in pad("\(counts[i][j])", w) }.joined(separator: "  "))
        }
        return lines.joined(separator: "\n")
    }
}
