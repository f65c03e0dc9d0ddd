import CoachData
import CoachTraining
import Foundation

/// Text rendering of action-classifier datasets and results.
enum ActionClassifierReport {
    /// Prints the dataset report (to stderr, like all progress) and its warnings.
    static func printSummary(_ summary: ActionDatasetSummary, ignoredFiles: Int) {
        let seconds = Double(summary.windowLength) / summary.frameRate
        let joints = summary.jointNames.count
        Console.note("dataset: \(summary.clipCount) clip\(summary.clipCount == 1 ? "" : "s"), \(summary.exampleCount) labeled segment\(summary.exampleCount == 1 ? "" : "s"), \(summary.windowsPerIteration) training windows per iteration")
        Console.note("joints: \(summary.jointSet == "body18" || summary.jointSet == "hand21" ? summary.jointSet : "custom") (\(joints): \(summary.jointNames.joined(separator: ", ")))\(summary.hasDepth ? " with z" : "")")
        Console.note("window: \(summary.windowLength) frames at \(format(summary.frameRate)) fps (\(String(format: "%.2f", seconds)) s)")
        let width = max(5, summary.classes.map(\.label.terminalWidth).max() ?? 5)
        Console.note("  " + MetricsTable.pad("class", width, left: false) + "  segments  windows  padded  seconds")
        for entry in summary.classes {
            let marker = entry.label == summary.backgroundLabel ? "  (background)" : ""
            Console.note("  " + MetricsTable.pad(entry.label, width, left: false) + "  " + MetricsTable.pad("\(entry.examples)", 8)
                         + "  " + MetricsTable.pad("\(entry.windowsPerIteration)", 7) + "  " + MetricsTable.pad("\(entry.paddedExamples)", 6)
                         + "  " + MetricsTable.pad(String(format: "%.1f", entry.seconds), 7) + marker)
        }
        Console.note("background class: \(summary.backgroundLabel.map { "'\($0)'" } ?? "(no class is named other, none, background or negative)")")
        Console.note("padded: \(summary.paddedExampleCount) of \(summary.exampleCount) segments are shorter than the window")
        if ignoredFiles > 0 { Console.note("ignored: \(ignoredFiles) file\(ignoredFiles == 1 ? "" : "s") that are not pose clips") }
        for warning in summary.warnings { Console.warning(warning) }
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }
}
