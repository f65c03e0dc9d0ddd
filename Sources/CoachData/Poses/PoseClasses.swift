/// Class bookkeeping shared by the pose classifiers: counts and the background class.
public enum PoseClasses {
    /// The conventional background-class names (FORMATS §3.6), in the order one is preferred when several occur.
    public static let conventionalBackgroundNames = ["other", "none", "background", "negative"]

    /// How many times each label occurs.
    public static func counts(of labels: [String]) -> [String: Int] {
        labels.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    /// The labels among `labels` named like a background class (case-insensitive), in the order of
    /// `conventionalBackgroundNames`, each once.
    public static func backgroundCandidates<Labels: Sequence>(among labels: Labels) -> [String] where Labels.Element == String {
        let distinct = Set(labels).sorted()
        return conventionalBackgroundNames.flatMap { name in distinct.filter { $0.lowercased() == name } }
    }

    /// The label treated as background: the first of `backgroundCandidates(among:)`, or nil when none is named so.
    public static func backgroundLabel<Labels: Sequence>(among labels: Labels) -> String? where Labels.Element == String {
        backgroundCandidates(among: labels).first
    }
}
