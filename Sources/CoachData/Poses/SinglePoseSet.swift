import Foundation

/// The single poses of one file, sharing one joint set.
public struct SinglePoseSet: Hashable, Sendable {
    /// The joints of every pose, in order.
    public var jointSet: JointSet
    /// Whether keypoints carry z.
    public var hasDepth: Bool
    /// The poses in file order.
    public var poses: [SinglePose]

    /// A set of `poses` over `jointSet`.
    public init(jointSet: JointSet, hasDepth: Bool, poses: [SinglePose]) {
        self.jointSet = jointSet
        self.hasDepth = hasDepth
        self.poses = poses
    }

    /// The poses' labels in file order.
    public var labels: [String] { poses.map(\.label) }

    /// How many poses each label has.
    public var classCounts: [String: Int] { PoseClasses.counts(of: labels) }

    /// Reads a single-pose CSV (`label,[chirality,]<joint>_x,<joint>_y,…`, one row per pose).
    /// - Throws: `PoseDataError` listing every problem with its line.
    /// With `requiringLabels` false, a file without a `label` column is accepted (for prediction)
    /// and every pose's label is empty.
    public static func read(_ file: URL, options: PoseReadingOptions = PoseReadingOptions(),
                            requiringLabels: Bool = true) throws -> SinglePoseSet {
        var log = PoseProblemLog()
        let set = read(file, options: options, requiringLabels: requiringLabels, log: &log)
        try log.throwIfAny()
        guard let set else { throw PoseDataError(problems: [PoseDataProblem(file: file.path, message: "could not be read")]) }
        return set
    }

    static func read(_ file: URL, options: PoseReadingOptions, requiringLabels: Bool = true,
                     log: inout PoseProblemLog) -> SinglePoseSet? {
        guard let table = CSVTable.read(file, log: &log) else { return nil }
        return read(table, options: options, requiringLabels: requiringLabels, log: &log)
    }

    static func read(_ table: CSVTable, options: PoseReadingOptions, requiringLabels: Bool = true,
                     log: inout PoseProblemLog) -> SinglePoseSet? {
        let file = table.file
        let layout = PoseColumnLayout.make(for: table, allowed: [.label, .chirality], log: &log)
        let hasLabels = table.header.contains(where: { $0.lowercased() == "label" })
        if requiringLabels && !hasLabels {
            log.add(file, line: table.headerLine, "has no 'label' column: expected 'label' and then <joint>_x, <joint>_y columns")
            return nil
        }
        guard let layout else { return nil }
        let labelColumn = layout.metadata[.label]
        guard !table.records.isEmpty else {
            log.add(file, line: table.headerLine, "has a header but no rows: expected one row per pose after the header")
            return nil
        }
        var poses: [SinglePose] = []
        poses.reserveCapacity(table.records.count)
        for record in table.records {
            let label = labelColumn.map { trimmingSpaces(record.fields[$0]) } ?? ""
            if labelColumn != nil, label.isEmpty { log.add(file, line: record.line, "column 'label' is empty: expected the pose's class label") }
            var chirality: Chirality? = nil
            if let column = layout.metadata[.chirality] {
                chirality = Chirality(text: record.fields[column])
                if chirality == nil {
                    log.add(file, line: record.line, "column '\(table.header[column])': '\(record.fields[column])' is not a chirality: expected left, right or unknown")
                }
            }
            let keypoints = layout.keypoints(of: record, table: table, options: options, log: &log)
            poses.append(SinglePose(label: label, keypoints: keypoints, chirality: chirality,
                                    source: PoseSource(file: file, line: record.line)))
        }
        return SinglePoseSet(jointSet: layout.jointSet, hasDepth: layout.hasDepth, poses: poses)
    }
}
