import Foundation

/// Where a pose CSV keeps its metadata and each joint's `_x`, `_y`, `_z` and `_confidence` cells,
/// worked out from the header (shared by the clip, table and single-pose CSV readers).
struct PoseColumnLayout {
    /// The non-joint columns a pose CSV may have.
    enum MetadataColumn: String, CaseIterable {
        case time, frame, sequence, label, chirality
    }

    /// The columns of one joint.
    struct JointColumns {
        var x: Int
        var y: Int
        var z: Int?
        var confidence: Int?
    }

    var metadata: [MetadataColumn: Int] = [:]
    /// In joint-set order (already reordered for body18 / hand21); nil for a joint of the layout
    /// the file has no columns for (never detected).
    var jointSet: JointSet
    var joints: [JointColumns?]
    var hasDepth: Bool

    static let channelSuffixes = ["x", "y", "z", "confidence"]

    /// Works out the layout of `table`'s header, or logs every problem with it and returns nil.
    static func make(for table: CSVTable, allowed: Set<MetadataColumn>, log: inout PoseProblemLog) -> PoseColumnLayout? {
        let file = table.file, line = table.headerLine
        var metadata: [MetadataColumn: Int] = [:]
        var jointOrder: [String] = []
        var channels: [String: [String: Int]] = [:]
        var problems = 0
        let allowedList = MetadataColumn.allCases.filter { allowed.contains($0) }.map { "'\($0.rawValue)'" }
        let expectation = (allowedList.isEmpty ? "" : allowedList.joined(separator: ", ") + " or ")
            + "<joint>_x, <joint>_y, <joint>_z, <joint>_confidence"

        for (column, name) in table.header.enumerated() {
            if let meta = MetadataColumn(rawValue: name.lowercased()) {
                if allowed.contains(meta) { metadata[meta] = column; continue }
                log.add(file, line: line, "column '\(name)' is not allowed in this kind of file: expected \(expectation)"
                        + (meta == .sequence ? " (a file with a 'sequence' column is a table of clips, FORMATS §3.4)" : ""))
                problems += 1
                continue
            }
            guard let underscore = name.lastIndex(of: "_"), underscore != name.startIndex else {
                log.add(file, line: line, "column '\(name)' is not a pose column: expected \(expectation)")
                problems += 1
                continue
            }
            let joint = String(name[..<underscore])
            let suffix = name[name.index(after: underscore)...].lowercased()
            guard channelSuffixes.contains(suffix) else {
                log.add(file, line: line, "column '\(name)' has suffix '_\(name[name.index(after: underscore)...])': expected \(expectation)")
                problems += 1
                continue
            }
            if channels[joint] == nil { jointOrder.append(joint); channels[joint] = [:] }
            if channels[joint]![suffix] != nil {
                log.add(file, line: line, "joint '\(joint)' has two '_\(suffix)' columns: expected one")
                problems += 1
            }
            channels[joint]![suffix] = column
        }

        var jointColumns: [JointColumns] = []
        var withDepth: [String] = [], withoutDepth: [String] = []
        for joint in jointOrder {
            let c = channels[joint]!
            guard let x = c["x"], let y = c["y"] else {
                let present = ["x", "y", "z", "confidence"].filter { c[$0] != nil }.map { "\(joint)_\($0)" }
                let missing = ["x", "y"].filter { c[$0] == nil }.map { "\(joint)_\($0)" }
                log.add(file, line: line, "joint '\(joint)' has \(present.joined(separator: ", ")) but no \(missing.joined(separator: " or ")): expected both \(joint)_x and \(joint)_y")
                problems += 1
                continue
            }
            if c["z"] != nil { withDepth.append(joint) } else { withoutDepth.append(joint) }
            jointColumns.append(JointColumns(x: x, y: y, z: c["z"], confidence: c["confidence"]))
        }
        if !withDepth.isEmpty, !withoutDepth.isEmpty {
            log.add(file, line: line, "joints \(withDepth.joined(separator: ", ")) have a _z column but \(withoutDepth.joined(separator: ", ")) do not: expected _z for all joints or none")
            problems += 1
        }
        if jointOrder.isEmpty {
            log.add(file, line: line, "has no joint columns: expected <joint>_x and <joint>_y columns for each joint (e.g. nose_x, nose_y)")
            problems += 1
        }
        guard problems == 0, let (jointSet, sourceIndices) = JointSet.identify(jointOrder) else { return nil }
        return PoseColumnLayout(metadata: metadata, jointSet: jointSet,
                                joints: sourceIndices.map { $0.map { jointColumns[$0] } }, hasDepth: !withDepth.isEmpty)
    }

    /// Reads one record's keypoints in joint-set order, logging non-numeric, non-finite and
    /// out-of-range cells. An empty cell or a confidence of 0 means the joint was not detected.
    func keypoints(of record: CSVTable.Record, table: CSVTable, options: PoseReadingOptions,
                   log: inout PoseProblemLog) -> [Keypoint?] {
        let fields = record.fields
        var result = [Keypoint?](repeating: nil, count: joints.count)
        let flipY = options.keypointOrigin == .bottomLeft
        for (j, columns) in joints.enumerated() {
            guard let columns else { continue }
            let xText = fields[columns.x], yText = fields[columns.y]
            let zText = columns.z.map { fields[$0] }, confidenceText = columns.confidence.map { fields[$0] }
            var anyEmpty = isEmptyCell(xText) || isEmptyCell(yText)
            if let zText, isEmptyCell(zText) { anyEmpty = true }
            if let confidenceText, isEmptyCell(confidenceText) { anyEmpty = true }
            // Check every non-empty cell even when another is empty, so that all problems are listed.
            let x = number(xText, column: columns.x, record: record, table: table, log: &log)
            let y = number(yText, column: columns.y, record: record, table: table, log: &log)
            let z = columns.z.flatMap { number(fields[$0], column: $0, record: record, table: table, log: &log) }
            var confidence: Double = 1
            if let column = columns.confidence, let value = number(fields[column], column: column, record: record, table: table, log: &log) {
                if value < 0 || value > 1 {
                    log.add(table.file, line: record.line, "column '\(table.header[column])': confidence \(fields[column]) is outside 0…1: expected a confidence between 0 and 1")
                }
                confidence = value
            }
            guard !anyEmpty, let x, let y, confidence > 0 else { continue }
            if columns.z != nil, z == nil { continue }
            result[j] = Keypoint(x: Float(x), y: Float(flipY ? 1 - y : y), z: z.map { Float($0) }, confidence: Float(confidence))
        }
        return result
    }

    /// The number in a non-empty cell; nil for an empty cell, or (logged) for a non-numeric or non-finite one.
    func number(_ text: String, column: Int, record: CSVTable.Record, table: CSVTable, log: inout PoseProblemLog) -> Double? {
        PoseColumnLayout.number(text, columnName: table.header[column], line: record.line, file: table.file, log: &log)
    }

    /// The number in a non-empty cell; nil for an empty cell, or (logged) for a non-numeric or non-finite one.
    static func number(_ text: String, columnName: String, line: Int, file: URL, log: inout PoseProblemLog) -> Double? {
        if isEmptyCell(text) { return nil }
        guard let value = parseNumber(text) else {
            log.add(file, line: line, "column '\(columnName)': '\(text)' is not a number: expected a decimal number such as 0.25, or an empty cell")
            return nil
        }
        guard value.isFinite else {
            log.add(file, line: line, "column '\(columnName)': '\(text)' is not finite: expected a finite number, or an empty cell for a joint not detected")
            return nil
        }
        guard abs(value) <= PoseLimits.numberMagnitude else {
            log.add(file, line: line, "column '\(columnName)': '\(text)' is beyond ±\(PoseLimits.numberMagnitude): expected a coordinate, time or confidence")
            return nil
        }
        return value
    }
}

/// Whether a CSV cell is empty (or only spaces).
func isEmptyCell(_ text: String) -> Bool {
    text.isEmpty || text.utf8.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
}

/// Parses a decimal number, allowing surrounding spaces.
func parseNumber(_ text: String) -> Double? {
    // Decimal only: Swift's Double(_:) also reads hexadecimal ("0x1p-1") and "nan"/"inf" spellings.
    func decimal(_ text: String) -> Double? {
        guard !text.utf8.contains(where: { $0 == UInt8(ascii: "x") || $0 == UInt8(ascii: "X") || $0 == UInt8(ascii: "p") || $0 == UInt8(ascii: "P") }) else {
            return nil
        }
        return Double(text)
    }
    if let value = decimal(text) { return value }
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    return trimmed == text ? nil : decimal(trimmed)
}

/// `text` without leading and trailing spaces and tabs (fast when there are none, as in most cells).
func trimmingSpaces(_ text: String) -> String {
    let utf8 = text.utf8
    func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
    guard let first = utf8.first, let last = utf8.last, isSpace(first) || isSpace(last) else { return text }
    return text.trimmingCharacters(in: .whitespaces)
}
