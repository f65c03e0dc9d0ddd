import Foundation

/// Reads one clip per file: CSV (FORMATS §3.2) or JSON (§3.3).
public enum PoseClipReader {
    /// The pose-file extensions a clip may have (lower case).
    public static let fileExtensions: Set<String> = ["csv", "json"]

    /// Reads the clip in `file`, choosing CSV or JSON by its extension.
    /// - Throws: `PoseDataError` listing every problem found, each with its line or JSON path.
    public static func read(_ file: URL, options: PoseReadingOptions = PoseReadingOptions()) throws -> PoseSequence {
        var log = PoseProblemLog()
        let clip = read(file, options: options, log: &log)
        try log.throwIfAny()
        guard let clip else { throw PoseDataError(problems: [PoseDataProblem(file: file.path, message: "could not be read")]) }
        return clip
    }

    /// Reads a one-clip CSV file (FORMATS §3.2).
    /// - Throws: `PoseDataError` listing every problem found, each with its line.
    public static func readCSV(_ file: URL, options: PoseReadingOptions = PoseReadingOptions()) throws -> PoseSequence {
        var log = PoseProblemLog()
        let clip = readCSV(file, options: options, log: &log)
        try log.throwIfAny()
        guard let clip else { throw PoseDataError(problems: [PoseDataProblem(file: file.path, message: "could not be read")]) }
        return clip
    }

    /// Reads a one-clip JSON file (FORMATS §3.3).
    /// - Throws: `PoseDataError` listing every problem found, each with its JSON path.
    public static func readJSON(_ file: URL, options: PoseReadingOptions = PoseReadingOptions()) throws -> PoseSequence {
        var log = PoseProblemLog()
        let clip = readJSON(file, options: options, log: &log)
        try log.throwIfAny()
        guard let clip else { throw PoseDataError(problems: [PoseDataProblem(file: file.path, message: "could not be read")]) }
        return clip
    }

    static func read(_ file: URL, options: PoseReadingOptions, log: inout PoseProblemLog) -> PoseSequence? {
        if let kind = MediaKind.of(file) {
            guard let media = options.media else {
                log.add(file, "is a \(kind == .video ? "video" : kind == .photo ? "photo" : "folder of photos"): Coach extracts poses from media "
                        + "with its pose models (`make build` imports them into models/pose; or run `coach extract-poses` first and name the clip)")
                return nil
            }
            do {
                return try media.read(file)
            } catch {
                log.add(file, (error as? LocalizedError)?.errorDescription ?? "\(error)")
                return nil
            }
        }
        switch file.pathExtension.lowercased() {
        case "csv": return readCSV(file, options: options, log: &log)
        case "json": return readJSON(file, options: options, log: &log)
        default:
            log.add(file, "has extension '.\(file.pathExtension)': expected a pose clip in .csv or .json")
            return nil
        }
    }

    static func readCSV(_ file: URL, options: PoseReadingOptions, log: inout PoseProblemLog) -> PoseSequence? {
        guard checkFrameRate(options, file: file, log: &log),
              let table = CSVTable.read(file, log: &log),
              let layout = PoseColumnLayout.make(for: table, allowed: [.time, .frame, .chirality], log: &log)
        else { return nil }
        guard !table.records.isEmpty else {
            log.add(file, line: table.headerLine, "has a header but no rows: expected one row per frame after the header")
            return nil
        }
        return clip(records: table.records, table: table, layout: layout, source: PoseSource(file: file, line: table.records[0].line),
                    options: options, log: &log)
    }

    /// Builds one clip from `records` of a clip or table CSV: times, keypoints and chirality.
    static func clip(records: [CSVTable.Record], table: CSVTable, layout: PoseColumnLayout, source: PoseSource,
                     options: PoseReadingOptions, log: inout PoseProblemLog) -> PoseSequence {
        let timeColumn = layout.metadata[.time], frameColumn = layout.metadata[.frame]
        var frames: [PoseFrame] = []
        frames.reserveCapacity(records.count)
        var previous: (time: Double, line: Int)? = nil
        var previousFrame: (number: Double, text: String, line: Int)? = nil
        var chirality: (value: Chirality, line: Int)? = nil
        let clipName = source.sequence.map { " in sequence \($0)" } ?? ""
        for (index, record) in records.enumerated() {
            var time = Double(index) / options.frameRate
            var timeText: String? = nil
            if let frameColumn {
                let text = record.fields[frameColumn]
                if let frame = PoseColumnLayout.number(text, columnName: table.header[frameColumn], line: record.line, file: table.file, log: &log) {
                    if frame < 0 || frame != frame.rounded() {
                        log.add(table.file, line: record.line, "column '\(table.header[frameColumn])': '\(text)' is not a frame number: expected a whole number ≥ 0")
                    }
                    time = frame / options.frameRate
                    timeText = "frame \(text)"
                    // With a time column too, the frame numbers must still count up: a clip whose
                    // two clocks disagree is not one the reader can trust either way.
                    if timeColumn != nil, let previousFrame, frame <= previousFrame.number {
                        log.add(table.file, line: record.line, "column '\(table.header[frameColumn])': frame \(text) is not after frame "
                                + "\(previousFrame.text) on line \(previousFrame.line)\(clipName): the frame and time columns disagree")
                    }
                    previousFrame = (frame, text, record.line)
                } else if isEmptyCell(text) {
                    log.add(table.file, line: record.line, "column '\(table.header[frameColumn])' is empty: expected a frame number")
                }
            }
            if let timeColumn {
                let text = record.fields[timeColumn]
                if let seconds = PoseColumnLayout.number(text, columnName: table.header[timeColumn], line: record.line, file: table.file, log: &log) {
                    time = seconds
                    timeText = "time \(text)"
                } else if isEmptyCell(text) {
                    log.add(table.file, line: record.line, "column '\(table.header[timeColumn])' is empty: expected a time in seconds")
                }
            }
            if !(abs(time) <= PoseLimits.timeMagnitude), let timeText {
                log.add(table.file, line: record.line, "\(timeText) is beyond ±\(Int(PoseLimits.timeMagnitude)) s: expected a time in seconds from the clip's start")
            }
            if let previous, time <= previous.time, let timeText {
                log.add(table.file, line: record.line, "\(timeText) is not after the previous row's (line \(previous.line))\(clipName): expected frames in increasing time")
            }
            previous = (time, record.line)
            if let column = layout.metadata[.chirality] {
                let text = record.fields[column]
                if let value = Chirality(text: text) {
                    if let chirality, chirality.value != value {
                        log.add(table.file, line: record.line, "chirality '\(value.rawValue)' differs from '\(chirality.value.rawValue)' on line \(chirality.line)\(clipName): expected one chirality per clip")
                    } else if chirality == nil {
                        chirality = (value, record.line)
                    }
                } else {
                    log.add(table.file, line: record.line, "column '\(table.header[column])': '\(text)' is not a chirality: expected left, right or unknown")
                }
            }
            frames.append(PoseFrame(time: time, keypoints: layout.keypoints(of: record, table: table, options: options, log: &log)))
        }
        let timed = timeColumn != nil
        var source = source
        source.headerLine = table.headerLine
        return PoseSequence(jointSet: layout.jointSet, frames: frames, source: source, chirality: chirality?.value,
                            hasDepth: layout.hasDepth, nominalFrameRate: timed ? nil : options.frameRate)
    }

    /// Logs a frame rate that is not a positive finite number.
    static func checkFrameRate(_ options: PoseReadingOptions, file: URL, log: inout PoseProblemLog) -> Bool {
        if let problem = PoseLimits.frameRateProblem(options.frameRate) {
            log.add(file, "cannot be read at frame rate \(problem)")
            return false
        }
        return true
    }
}
