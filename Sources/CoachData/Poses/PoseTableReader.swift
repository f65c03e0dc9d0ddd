import Foundation

/// Reads many labeled clips from one table CSV (FORMATS §3.4): `sequence,label,[time|frame,]<joint>_x,…`.
public enum PoseTableReader {
    /// Reads `file`: rows with the same `sequence` form one clip, in row order, clips in order of first appearance.
    /// Each clip carries one whole-clip segment with its label.
    /// - Throws: `PoseDataError` listing every problem with its line (e.g. a label changing within a sequence).
    public static func read(_ file: URL, options: PoseReadingOptions = PoseReadingOptions()) throws -> [LabeledPoseClip] {
        var log = PoseProblemLog()
        let clips = read(file, options: options, log: &log)
        try log.throwIfAny()
        return clips
    }

    static func read(_ file: URL, options: PoseReadingOptions, log: inout PoseProblemLog) -> [LabeledPoseClip] {
        guard PoseClipReader.checkFrameRate(options, file: file, log: &log),
              let table = CSVTable.read(file, log: &log) else { return [] }
        return read(table, options: options, log: &log)
    }

    static func read(_ table: CSVTable, options: PoseReadingOptions, log: inout PoseProblemLog) -> [LabeledPoseClip] {
        let file = table.file
        let layout = PoseColumnLayout.make(for: table, allowed: [.sequence, .label, .time, .frame, .chirality], log: &log)
        let columns = table.columnIndexByName.reduce(into: [String: Int]()) { $0[$1.key.lowercased()] = $1.value }
        for required in ["sequence", "label"] where columns[required] == nil {
            log.add(file, line: table.headerLine, "has no '\(required)' column: expected a table with 'sequence' and 'label' columns, then <joint>_x, <joint>_y columns")
        }
        guard let layout, let sequenceColumn = columns["sequence"], let labelColumn = columns["label"] else { return [] }
        guard !table.records.isEmpty else {
            log.add(file, line: table.headerLine, "has a header but no rows: expected one row per frame after the header")
            return []
        }
        struct Group {
            var sequence: String
            var label: String
            var labelLine: Int
            var records: [CSVTable.Record]
        }
        var groups: [Group] = []
        var groupIndex: [String: Int] = [:]
        for record in table.records {
            let sequence = trimmingSpaces(record.fields[sequenceColumn])
            let label = trimmingSpaces(record.fields[labelColumn])
            if sequence.isEmpty {
                log.add(file, line: record.line, "column 'sequence' is empty: expected the id of the clip this row belongs to")
                continue
            }
            if label.isEmpty {
                log.add(file, line: record.line, "column 'label' is empty: expected the class label of sequence \(sequence)")
            }
            if let index = groupIndex[sequence] {
                let (groupLabel, groupLabelLine) = (groups[index].label, groups[index].labelLine)
                if !label.isEmpty, !groupLabel.isEmpty, label != groupLabel {
                    log.add(file, line: record.line, "label '\(label)' differs from '\(groupLabel)' on line \(groupLabelLine) in sequence \(sequence): expected one label per sequence")
                }
                if groupLabel.isEmpty, !label.isEmpty { groups[index].label = label; groups[index].labelLine = record.line }
                groups[index].records.append(record)
            } else {
                groupIndex[sequence] = groups.count
                groups.append(Group(sequence: sequence, label: label, labelLine: record.line, records: [record]))
            }
        }
        return groups.map { group in
            let clip = PoseClipReader.clip(records: group.records, table: table, layout: layout,
                                           source: PoseSource(file: file, sequence: group.sequence, line: group.records[0].line),
                                           options: options, log: &log)
            return LabeledPoseClip(sequence: clip, segments: [PoseSegment(label: group.label)])
        }
    }
}
