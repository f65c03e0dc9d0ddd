import Foundation

/// Reads motion-capture CSV files (`[frame,][time,]<joint>_x,<joint>_y,<joint>_z,…`, metres,
/// y up; the format of `datasets/mocap-motions`). Any damage — a truncated file, a missing joint
/// column, a NaN or a non-numeric cell — is a `MocapError` naming the file, line and column.
public enum MocapReader {
    /// The clips of `directory/csv/*.csv` (or `directory/*.csv`), sorted by name.
    public static func loadLibrary(_ directory: URL) throws -> [MocapClip] {
        let fileManager = FileManager.default
        var folder = directory.appendingPathComponent("csv")
        var isDirectory: ObjCBool = false
        if !fileManager.fileExists(atPath: folder.path, isDirectory: &isDirectory) || !isDirectory.boolValue { folder = directory }
        let names: [String]
        do {
            names = try fileManager.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".csv") }.sorted()
        } catch {
            throw MocapError.unreadable(path: folder.path, reason: error.localizedDescription)
        }
        if names.isEmpty { throw MocapError.noMotions(path: directory.path) }
        return try names.map { try load(folder.appendingPathComponent($0)) }
    }

    /// One clip from a CSV file; the trial name is the file's stem and the subject the number
    /// before its first underscore (0 when there is none). Frames are at 30 fps unless a `time`
    /// column says otherwise.
    public static func load(_ url: URL) throws -> MocapClip {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw MocapError.unreadable(path: url.path, reason: "the file does not exist or cannot be opened")
        }
        let name = url.deletingPathExtension().lastPathComponent
        return try parse([UInt8](data), path: url.path, name: name)
    }

    /// Parses CSV text; `path` names the file in errors.
    public static func parse(_ bytes: [UInt8], path: String, name: String) throws -> MocapClip {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        for index in bytes.indices where bytes[index] == 10 {
            lines.append(bytes[start..<index])
            start = index + 1
        }
        if start < bytes.count { lines.append(bytes[start..<bytes.count]) }
        func cells(_ line: ArraySlice<UInt8>) -> [Substring] {
            var text = String(decoding: line, as: UTF8.self)
            if text.hasSuffix("\r") { text.removeLast() }
            return text.split(separator: ",", omittingEmptySubsequences: false)
        }
        guard let headerLine = lines.first else { throw MocapError.empty(path: path) }
        let header = cells(headerLine).map { $0.trimmingCharacters(in: .whitespaces) }
        var columnOf: [String: Int] = [:]
        for (index, column) in header.enumerated() { columnOf[column] = index }
        var jointColumns: [Int] = []
        for joint in MocapClip.jointNames {
            for axis in ["x", "y", "z"] {
                guard let column = columnOf["\(joint)_\(axis)"] else {
                    throw MocapError.missingColumn(path: path, column: "\(joint)_\(axis)")
                }
                jointColumns.append(column)
            }
        }
        let timeColumn = columnOf["time"]
        var frames: [[SIMD3<Float>]] = []
        var times: [Double] = []
        frames.reserveCapacity(lines.count)
        for lineIndex in 1..<lines.count {
            let line = lines[lineIndex]
            if line.allSatisfy({ $0 == 32 || $0 == 13 }) { continue }
            // Cell boundaries by scanning bytes: this runs 600,000 times for the shipped trials.
            var bounds: [(Int, Int)] = []
            bounds.reserveCapacity(header.count)
            var cellStart = line.startIndex
            var lineEnd = line.endIndex
            if lineEnd > cellStart, bytes[lineEnd - 1] == 13 { lineEnd -= 1 }
            for index in cellStart..<lineEnd where bytes[index] == 44 {
                bounds.append((cellStart, index))
                cellStart = index + 1
            }
            bounds.append((cellStart, lineEnd))
            guard bounds.count == header.count else {
                throw MocapError.wrongCellCount(path: path, line: lineIndex + 1, expected: header.count, found: bounds.count)
            }
            func number(_ column: Int) throws -> Float {
                let (from, to) = bounds[column]
                if let value = fastDecimal(bytes, from, to) { return value }
                let text = String(decoding: bytes[from..<to], as: UTF8.self).trimmingCharacters(in: .whitespaces)
                guard let value = Float(text), value.isFinite else {
                    throw MocapError.badNumber(path: path, line: lineIndex + 1, column: header[column], text: text)
                }
                return value
            }
            var joints = [SIMD3<Float>](repeating: .zero, count: MocapClip.jointNames.count)
            for joint in joints.indices {
                joints[joint] = SIMD3(try number(jointColumns[3 * joint]), try number(jointColumns[3 * joint + 1]),
                                      try number(jointColumns[3 * joint + 2]))
            }
            if let timeColumn { times.append(Double(try number(timeColumn))) }
            frames.append(joints)
        }
        if frames.isEmpty { throw MocapError.empty(path: path) }
        var frameRate = 30.0
        if times.count >= 2, let first = times.first, let last = times.last, last > first {
            frameRate = Double(times.count - 1) / (last - first)
        }
        let subject = Int(name.split(separator: "_").first ?? "") ?? 0
        return MocapClip(name: name, subject: subject, frameRate: frameRate, frames: frames)
    }

    /// A plain decimal (`-12.345`) in `bytes[from..<to]`, or `nil` for anything else (empty,
    /// exponents, words), which the caller parses the slow way or reports.
    private static func fastDecimal(_ bytes: [UInt8], _ from: Int, _ to: Int) -> Float? {
        var index = from
        var negative = false
        if index < to, bytes[index] == 45 { negative = true; index += 1 }
        var mantissa: Int64 = 0, scale: Double = 1, digits = 0, seenPoint = false
        while index < to {
            let byte = bytes[index]
            if byte >= 48 && byte <= 57 {
                guard digits < 17 else { return nil }
                mantissa = mantissa * 10 + Int64(byte - 48)
                digits += 1
                if seenPoint { scale *= 10 }
            } else if byte == 46 && !seenPoint {
                seenPoint = true
            } else {
                return nil
            }
            index += 1
        }
        guard digits > 0 else { return nil }
        let value = Float(Double(mantissa) / scale)
        return negative ? -value : value
    }
}
