import CoachTraining

/// Text rendering of hand-pose datasets.
enum HandPoseReport {
    /// Prints the dataset report (to stderr, like all progress) and its warnings.
    static func printSummary(_ summary: SinglePoseSetSummary) {
        let channels = ["x", "y"] + (summary.hasDepth ? ["z"] : []) + (summary.hasConfidence ? ["confidence"] : [])
        Console.note("dataset: \(summary.poseCount) pose\(summary.poseCount == 1 ? "" : "s") in \(summary.classes.count) class\(summary.classes.count == 1 ? "" : "es")")
        Console.note("joints: \(summary.jointSet == "hand21" ? "hand21" : "custom") (\(summary.jointNames.count)) with \(channels.joined(separator: ", "))\(summary.undetectedKeypoints > 0 ? "; \(summary.undetectedKeypoints) keypoints not detected" : "")")
        let width = max(5, summary.classes.map(\.label.count).max() ?? 5)
        Console.note("  " + MetricsTable.pad("class", width, left: false) + "  poses   left  right  unknown")
        for entry in summary.classes {
            let marker = entry.label == summary.backgroundLabel ? "  (background)" : ""
            Console.note("  " + MetricsTable.pad(entry.label, width, left: false) + "  " + MetricsTable.pad("\(entry.poses)", 5)
                         + "  " + MetricsTable.pad("\(entry.leftHands)", 5) + "  " + MetricsTable.pad("\(entry.rightHands)", 5)
                         + "  " + MetricsTable.pad("\(entry.unknownHands)", 7) + marker)
        }
        Console.note("background class: \(summary.backgroundLabel.map { "'\($0)'" } ?? "(no class is named background, other, none or negative)")")
        for warning in summary.warnings { Console.warning(warning) }
    }
}
