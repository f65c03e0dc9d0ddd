import Foundation

/// Reads Create ML action-classifier annotation files: CSV `file,label,start,end` or JSON
/// `[{"file", "label", "start", "end"}]`, with `video` accepted for `file` (FORMATS §3.6).
public enum PoseAnnotationReader {
    /// Reads the annotations in `file` (CSV or JSON by extension) and resolves the pose files they name.
    /// Other CSV columns and JSON keys are ignored.
    /// - Throws: `PoseDataError` listing every problem with its line or JSON path: missing columns or
    ///   keys, empty labels, non-numeric or negative times, `end` ≤ `start`, and pose files that do not exist.
    public static func read(_ file: URL) throws -> [PoseAnnotation] {
        var log = PoseProblemLog()
        let annotations = read(file, log: &log)
        try log.throwIfAny()
        return annotations
    }

    static func read(_ file: URL, log: inout PoseProblemLog) -> [PoseAnnotation] {
        switch file.pathExtension.lowercased() {
        case "json":
            return readJSON(file, log: &log)
        case "csv":
            guard let table = CSVTable.read(file, log: &log) else { return [] }
            return read(table, log: &log)
        default:
            log.add(file, "has extension '.\(file.pathExtension)': expected an annotation file in .csv or .json")
            return []
        }
    }

    static func read(_ table: CSVTable, log: inout PoseProblemLog) -> [PoseAnnotation] {
        let file = table.file
        let columns = table.columnIndexByName.reduce(into: [String: Int]()) { $0[$1.key.lowercased()] = $1.value }
        let fileColumn = columns["file"] ?? columns["video"]
        if fileColumn == nil {
            log.add(file, line: table.headerLine, "has no 'file' (or 'video') column: expected columns file,label[,start,end]")
        }
        if columns["label"] == nil {
            log.add(file, line: table.headerLine, "has no 'label' column: expected columns file,label[,start,end]")
        }
        guard let fileColumn, let labelColumn = columns["label"] else { return [] }
        if table.records.isEmpty {
            log.add(file, line: table.headerLine, "has a header but no rows: expected one annotation per row")
            return []
        }
        var annotations: [PoseAnnotation] = []
        for record in table.records {
            var seconds: [String: Double] = [:]
            var valid = true
            for key in ["start", "end"] {
                guard let column = columns[key] else { continue }
                var scratch = PoseProblemLog()
                let text = record.fields[column]
                if let value = PoseColumnLayout.number(text, columnName: table.header[column], line: record.line, file: file, log: &scratch) {
                    seconds[key] = value
                } else if !isEmptyCell(text) {
                    log.add(file, line: record.line, "column '\(table.header[column])': '\(text)' is not a time: expected seconds such as 1.5, or an empty cell for the clip's \(key)")
                    valid = false
                }
            }
            let reference = record.fields[fileColumn].trimmingCharacters(in: .whitespaces)
            let label = trimmingSpaces(record.fields[labelColumn])
            let location = PoseDataProblem(file: file.path, line: record.line, message: "")
            if let annotation = make(reference: reference, label: label, start: seconds["start"], end: seconds["end"],
                                     annotationFile: file, location: location, log: &log), valid {
                annotations.append(annotation)
            }
        }
        return annotations
    }

    static func readJSON(_ file: URL, log: inout PoseProblemLog) -> [PoseAnnotation] {
        guard let root = PoseJSON.read(file, log: &log) else { return [] }
        guard let entries = root as? [Any] else {
            log.add(file, jsonPath: "$", "is \(PoseJSON.typeName(root)): expected an array of {\"file\", \"label\", \"start\", \"end\"} objects")
            return []
        }
        if entries.isEmpty { log.add(file, jsonPath: "$", "is an empty array: expected at least one annotation") }
        var annotations: [PoseAnnotation] = []
        for (index, entry) in entries.enumerated() {
            let path = "[\(index)]"
            guard let object = entry as? [String: Any] else {
                log.add(file, jsonPath: path, "is \(PoseJSON.typeName(entry)): expected an object {\"file\", \"label\", \"start\", \"end\"}")
                continue
            }
            var valid = true
            let fileKey = object["file"] != nil ? "file" : "video"
            var reference = ""
            if let value = object[fileKey] {
                if let text = value as? String { reference = text } else {
                    log.add(file, jsonPath: "\(path).\(fileKey)", "is \(PoseJSON.typeName(value)): expected the pose file's path as a string")
                    valid = false
                }
            }
            var label = ""
            if let value = object["label"] {
                if let text = value as? String { label = text } else {
                    log.add(file, jsonPath: "\(path).label", "is \(PoseJSON.typeName(value)): expected the class label as a string")
                    valid = false
                }
            }
            var seconds: [String: Double] = [:]
            for key in ["start", "end"] {
                guard let value = object[key], !(value is NSNull) else { continue }
                if let number = PoseJSON.number(value), number.isFinite { seconds[key] = number } else {
                    log.add(file, jsonPath: "\(path).\(key)", "is \(PoseJSON.typeName(value)): expected a time in seconds, or null for the clip's \(key)")
                    valid = false
                }
            }
            let location = PoseDataProblem(file: file.path, jsonPath: path, message: "")
            if let annotation = make(reference: reference.trimmingCharacters(in: .whitespaces), label: label.trimmingCharacters(in: .whitespaces),
                                     start: seconds["start"], end: seconds["end"], annotationFile: file, location: location,
                                     log: &log, fileKeyPresent: object[fileKey] != nil, labelKeyPresent: object["label"] != nil), valid {
                annotations.append(annotation)
            }
        }
        return annotations
    }

    /// Validates one annotation's values and resolves its pose file; logs problems at `location`.
    private static func make(reference: String, label: String, start: Double?, end: Double?, annotationFile: URL,
                             location: PoseDataProblem, log: inout PoseProblemLog,
                             fileKeyPresent: Bool = true, labelKeyPresent: Bool = true) -> PoseAnnotation? {
        func problem(_ message: String) {
            var p = location
            p.message = message
            log.add(p)
        }
        var valid = true
        if reference.isEmpty {
            problem(fileKeyPresent ? "the file is empty: expected the path of a pose clip (.csv or .json), relative to the annotation file"
                                   : "has no \"file\" (or \"video\"): expected the path of a pose clip")
            valid = false
        }
        if label.isEmpty {
            problem(labelKeyPresent ? "the label is empty: expected a class label" : "has no \"label\": expected a class label")
            valid = false
        }
        if let start, start < 0 { problem("start \(start) is negative: expected seconds ≥ 0"); valid = false }
        if let end, end <= 0 { problem("end \(end) is not positive: expected seconds > 0"); valid = false }
        if let start, let end, end <= start {
            problem("end \(end) is not after start \(start): expected end > start")
            valid = false
        }
        var poseFile: URL? = nil
        if !reference.isEmpty {
            poseFile = resolve(reference, relativeTo: annotationFile.deletingLastPathComponent(), problem: problem)
        }
        guard valid, let poseFile else { return nil }
        return PoseAnnotation(reference: reference, poseFile: poseFile, label: label, start: start, end: end,
                              annotationFile: annotationFile, line: location.line, jsonPath: location.jsonPath)
    }

    /// The pose file `reference` names: the file itself when it is `.csv`/`.json`, else the `.csv` or
    /// `.json` with the same stem beside it, else — a video or photo that exists — the media itself
    /// (its poses are extracted when the dataset is read with a `MediaPoseReader`).
    static func resolve(_ reference: String, relativeTo folder: URL, problem: (String) -> Void) -> URL? {
        let named = reference.hasPrefix("/") ? URL(fileURLWithPath: reference) : folder.appendingPathComponent(reference)
        let fileManager = FileManager.default
        if PoseClipReader.fileExtensions.contains(named.pathExtension.lowercased()) {
            guard fileManager.fileExists(atPath: named.path) else {
                problem("file '\(reference)' does not exist (looked for \(named.path)): expected an existing pose clip")
                return nil
            }
            return named
        }
        let stem = named.deletingPathExtension()
        let candidates = ["csv", "json"].map { stem.appendingPathExtension($0) }.filter { fileManager.fileExists(atPath: $0.path) }
        switch candidates.count {
        case 1: return candidates[0]
        case 0:
            if MediaKind.of(named) != nil && fileManager.fileExists(atPath: named.path) { return named }
            problem("file '\(reference)' has no pose clip (looked for \(stem.lastPathComponent).csv and \(stem.lastPathComponent).json in \(stem.deletingLastPathComponent().path)): expected the clip's poses, or the video itself, beside the annotation file")
        default:
            problem("file '\(reference)' matches both \(stem.lastPathComponent).csv and \(stem.lastPathComponent).json: expected one pose clip per stem (name the file with its extension)")
        }
        return nil
    }
}
