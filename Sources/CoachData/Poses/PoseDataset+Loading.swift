import Foundation

extension PoseDataset {
    /// Loads a dataset from `url`: a folder of class folders (`<root>/<label>/<clip>.{csv,json}`),
    /// an annotation file (`.json`, or a `.csv` with `file`/`video` and `label` columns), or a table
    /// CSV (with `sequence` and `label` columns).
    /// - Throws: `PoseDataError` listing every problem in every file.
    public static func load(_ url: URL, options: PoseReadingOptions = PoseReadingOptions()) throws -> PoseDataset {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw PoseDataError(problems: [PoseDataProblem(file: url.path, message: "does not exist: expected a folder of class folders, an annotation file or a table CSV")])
        }
        if isDirectory.boolValue { return try loadClassFolders(url, options: options) }
        var log = PoseProblemLog()
        var dataset: PoseDataset? = nil
        switch url.pathExtension.lowercased() {
        case "json":
            dataset = annotated(PoseAnnotationReader.readJSON(url, log: &log), options: options, log: &log)
        case "csv":
            guard let table = CSVTable.read(url, log: &log) else { break }
            let names = Set(table.header.map { $0.lowercased() })
            if names.contains("sequence") {
                dataset = assemble(PoseTableReader.read(table, options: options, log: &log), ignoredFiles: [], source: url, log: &log)
            } else if names.contains("file") || names.contains("video") {
                dataset = annotated(PoseAnnotationReader.read(table, log: &log), options: options, log: &log)
            } else {
                log.add(url, line: table.headerLine, "is neither a table of clips nor an annotation file: expected 'sequence' and 'label' columns (FORMATS §3.4) or 'file' and 'label' columns (§3.6)")
            }
        default:
            log.add(url, "has extension '.\(url.pathExtension)': expected a folder, an annotation file (.csv, .json) or a table (.csv)")
        }
        try log.throwIfAny()
        guard let dataset else { throw PoseDataError(problems: [PoseDataProblem(file: url.path, message: "could not be read")]) }
        return dataset
    }

    /// Loads `<root>/<label>/<clip>.{csv,json}`: each folder's name is the label of its clips, one
    /// whole-clip segment each. Hidden entries are skipped; other files are listed in `ignoredFiles`.
    /// - Throws: `PoseDataError` listing every problem (including class folders without clips).
    public static func loadClassFolders(_ root: URL, options: PoseReadingOptions = PoseReadingOptions()) throws -> PoseDataset {
        var log = PoseProblemLog()
        var ignored: [URL] = []
        var clips: [LabeledPoseClip] = []
        guard PoseClipReader.checkFrameRate(options, file: root, log: &log) else { try log.throwIfAny(); return try unreachable(root) }
        let entries: [URL]
        do {
            entries = try sortedEntries(of: root)
        } catch {
            throw PoseDataError(problems: [PoseDataProblem(file: root.path, message: "cannot be listed (\(error.localizedDescription)): expected a folder of class folders")])
        }
        var classFolders = 0
        for entry in entries {
            guard isDirectory(entry), !DataFiles.isIgnoredName(entry.lastPathComponent) else { ignored.append(entry); continue }
            classFolders += 1
            let label = entry.lastPathComponent
            var clipFiles: [URL] = []
            var skipped: [(url: URL, reason: String)] = []
            do {
                for file in try sortedEntries(of: entry) {
                    let ext = file.pathExtension.lowercased()
                    guard PoseClipReader.fileExtensions.contains(ext) || MediaKind.videoExtensions.contains(ext)
                        || MediaKind.photoExtensions.contains(ext) else { ignored.append(file); continue }
                    if let reason = DataFiles.skipReason(file, inClassFolder: entry, datasetRoot: root) {
                        skipped.append((file, reason))
                        ignored.append(file)
                    } else {
                        clipFiles.append(file)
                    }
                }
            } catch {
                log.add(entry, "cannot be listed (\(error.localizedDescription)): expected a readable class folder")
                continue
            }
            if clipFiles.isEmpty {
                let why = DataFiles.skippedSummary(skipped).map { " (not read: \($0))" } ?? ""
                let nested = foldersHoldingClips(in: entry)
                if !nested.isEmpty {
                    // `<root>/train/<label>/…`: the root of a split dataset was given.
                    let names = nested.prefix(3).joined(separator: "', '") + (nested.count > 3 ? "', …" : "'")
                    log.add(entry, "class folder '\(label)' holds no clips itself but its folders '\(names) do: \(root.path) looks like a folder of splits; give \(entry.path) as the data (and another split as validation or test data)")
                } else {
                    log.add(entry, "class folder '\(label)' has no .csv or .json clips, videos or photos\(why): expected at least one clip per class")
                }
            }
            for file in clipFiles {
                if let clip = PoseClipReader.read(file, options: options, log: &log) {
                    // A photo or video in which no pose was found is skipped (listed as ignored).
                    if MediaKind.of(file) != nil && clip.frames.allSatisfy({ $0.detectedCount == 0 }) {
                        ignored.append(file)
                        continue
                    }
                    clips.append(LabeledPoseClip(sequence: clip, segments: [PoseSegment(label: label)]))
                }
            }
        }
        if classFolders == 0 {
            log.add(root, "has no class folders: expected <root>/<label>/<clip>.csv or .json")
        }
        let dataset = assemble(clips, ignoredFiles: ignored, source: root, log: &log)
        try log.throwIfAny()
        guard let dataset else { return try unreachable(root) }
        return dataset
    }

    /// Loads the clips an annotation file names, with its segments (several per clip allowed).
    /// - Throws: `PoseDataError` listing every problem, including segments beyond their clip's end.
    public static func loadAnnotations(_ annotationFile: URL, options: PoseReadingOptions = PoseReadingOptions()) throws -> PoseDataset {
        var log = PoseProblemLog()
        let annotations = PoseAnnotationReader.read(annotationFile, log: &log)
        let dataset = annotated(annotations, options: options, log: &log)
        try log.throwIfAny()
        guard let dataset else { return try unreachable(annotationFile) }
        return dataset
    }

    /// Loads a table CSV (FORMATS §3.4): one clip per `sequence`, labeled by its `label`.
    /// - Throws: `PoseDataError` listing every problem with its line.
    public static func loadTable(_ file: URL, options: PoseReadingOptions = PoseReadingOptions()) throws -> PoseDataset {
        var log = PoseProblemLog()
        let clips = PoseTableReader.read(file, options: options, log: &log)
        let dataset = log.isEmpty ? assemble(clips, ignoredFiles: [], source: file, log: &log) : nil
        try log.throwIfAny()
        guard let dataset else { return try unreachable(file) }
        return dataset
    }

    // MARK: - Assembly

    /// Reads each annotated clip once and attaches its segments, checking them against the clip.
    static func annotated(_ annotations: [PoseAnnotation], options: PoseReadingOptions, log: inout PoseProblemLog) -> PoseDataset? {
        guard let annotationFile = annotations.first?.annotationFile else { return nil }
        guard PoseClipReader.checkFrameRate(options, file: annotationFile, log: &log) else { return nil }
        var order: [URL] = []
        var byFile: [URL: [PoseAnnotation]] = [:]
        for annotation in annotations {
            let key = annotation.poseFile.standardizedFileURL
            if byFile[key] == nil { order.append(key) }
            byFile[key, default: []].append(annotation)
        }
        var clips: [LabeledPoseClip] = []
        for file in order {
            let fileAnnotations = byFile[file] ?? []
            var clipLog = PoseProblemLog()
            let read = PoseClipReader.read(file, options: options, log: &clipLog)
            log.append(contentsOf: clipLog)
            guard let clip = read else {
                // Say where the unreadable file was named, too.
                if let first = fileAnnotations.first {
                    log.add(first.problem("names '\(first.reference)', which cannot be read as a pose clip: "
                                          + (clipLog.problems.first?.message ?? "see the problem above")))
                }
                continue
            }
            let valid = fileAnnotations.filter { check($0, against: clip, log: &log) }
            checkOverlaps(valid, in: clip, log: &log)
            let segments = valid.map(\.segment)
            clips.append(LabeledPoseClip(sequence: clip, segments: segments))
        }
        return assemble(clips, ignoredFiles: [], source: annotationFile, log: &log)
    }

    /// Logs a segment that starts or ends beyond the clip, or holds none of its frames.
    static func check(_ annotation: PoseAnnotation, against clip: PoseSequence, log: inout PoseProblemLog) -> Bool {
        let name = clip.source.file.lastPathComponent
        let clipEnd = clip.endTime
        let tolerance = max(1e-3, 0.5 * (clip.frameInterval ?? 0))
        let range = String(format: "%.3f–%.3f s", clip.startTime, clipEnd)
        var valid = true
        if let start = annotation.start, start >= clipEnd {
            log.add(annotation.problem("segment starts at \(start) s, at or after the end of clip '\(name)' (\(range)): expected a start within the clip"))
            valid = false
        }
        if let end = annotation.end, end > clipEnd + tolerance {
            log.add(annotation.problem("segment ends at \(end) s, beyond the end of clip '\(name)' (\(range)): expected an end within the clip"))
            valid = false
        }
        if valid, clip.trimmed(from: annotation.start, to: annotation.end).frames.isEmpty {
            log.add(annotation.problem("segment \(annotation.start ?? clip.startTime)–\(annotation.end ?? clipEnd) s holds no frame of clip '\(name)' (\(range)): expected a segment covering at least one frame"))
            valid = false
        }
        return valid
    }

    /// Logs every pair of segments of one clip that carry different labels and share more than a
    /// frame: a window inside both would be taught two answers, and an evaluation would score one
    /// stretch of poses against two truths. Each pair is reported at the later annotation.
    static func checkOverlaps(_ annotations: [PoseAnnotation], in clip: PoseSequence, log: inout PoseProblemLog) {
        let tolerance = max(1e-3, clip.frameInterval ?? 0)
        let spans = annotations.map { (annotation: $0, start: $0.start ?? clip.startTime, end: $0.end ?? clip.endTime) }
        let name = clip.source.file.lastPathComponent
        func place(_ annotation: PoseAnnotation) -> String {
            if let line = annotation.line { return "line \(line)" }
            return annotation.jsonPath.map { "at \($0)" } ?? "elsewhere"
        }
        for later in spans.indices {
            for earlier in 0..<later where spans[earlier].annotation.label != spans[later].annotation.label {
                let a = spans[earlier], b = spans[later]
                let shared = min(a.end, b.end) - max(a.start, b.start)
                guard shared > tolerance else { continue }
                log.add(b.annotation.problem(String(
                    format: "segment '%@' %.3f–%.3f s overlaps segment '%@' %.3f–%.3f s (%@) of clip '%@' by %.3f s: "
                        + "expected segments with different labels not to overlap (a window in both would have two labels)",
                    b.annotation.label, b.start, b.end, a.annotation.label, a.start, a.end, place(a.annotation), name, shared)))
            }
        }
    }

    /// Checks that every clip has the same joints (reordering them to the most common set) and the
    /// same channels, then builds the dataset.
    static func assemble(_ clips: [LabeledPoseClip], ignoredFiles: [URL], source: URL, log: inout PoseProblemLog) -> PoseDataset? {
        guard !clips.isEmpty else {
            if log.isEmpty { log.add(source, "holds no clips: expected at least one labeled clip") }
            return nil
        }
        // The reference joint set: the most common one (ties: the first met).
        var tally: [Set<String>: (count: Int, first: Int)] = [:]
        for (index, clip) in clips.enumerated() {
            let key = Set(clip.sequence.jointSet.names)
            if let entry = tally[key] { tally[key] = (entry.count + 1, entry.first) } else { tally[key] = (1, index) }
        }
        var best = (count: 0, first: 0)
        for entry in tally.values where entry.count > best.count || (entry.count == best.count && entry.first < best.first) {
            best = entry
        }
        let reference = clips[best.first].sequence
        let referenceKey = Set(reference.jointSet.names)
        let depthVotes = clips.filter { Set($0.sequence.jointSet.names) == referenceKey }.map(\.sequence.hasDepth)
        let hasDepth = depthVotes.filter { $0 }.count * 2 > depthVotes.count
        let referenceSummary = reference.jointSet.kind == .custom
            ? "the \(reference.jointSet.count) joints \(reference.jointSet.names.joined(separator: ", "))"
            : "the \(reference.jointSet.count) joints of \(reference.jointSet.kind.rawValue)"

        var result: [LabeledPoseClip] = []
        for clip in clips {
            let sequence = clip.sequence
            let location = jointLocation(of: sequence)
            guard let reordered = sequence.reordered(to: reference.jointSet) else {
                let names = Set(sequence.jointSet.names)
                let missing = reference.jointSet.names.filter { !names.contains($0) }
                let unknown = sequence.jointSet.names.filter { !referenceKey.contains($0) }
                var parts: [String] = []
                if !missing.isEmpty { parts.append("lacks \(missing.joined(separator: ", "))") }
                if !unknown.isEmpty { parts.append("has unknown joints \(unknown.joined(separator: ", "))") }
                log.add(PoseDataProblem(file: sequence.source.file.path, line: location.line, jsonPath: location.jsonPath,
                                        message: "\(parts.joined(separator: " and ")): expected \(referenceSummary), like \(clips.count - 1 == 0 ? "the dataset" : "the other clips")"))
                continue
            }
            if sequence.hasDepth != hasDepth, sequence.frames.contains(where: { $0.keypoints.contains { $0 != nil } }) {
                log.add(PoseDataProblem(file: sequence.source.file.path, line: location.line, jsonPath: location.jsonPath,
                                        message: sequence.hasDepth ? "has z coordinates: expected x, y only, like the other clips"
                                                                   : "has no z coordinates: expected x, y, z, like the other clips"))
                continue
            }
            result.append(LabeledPoseClip(sequence: reordered, segments: clip.segments))
        }
        guard log.isEmpty else { return nil }
        return PoseDataset(jointSet: reference.jointSet, hasDepth: hasDepth, clips: result, ignoredFiles: ignoredFiles)
    }

    /// Where a clip's joint names are written: its CSV header line, or its JSON `joints`.
    private static func jointLocation(of sequence: PoseSequence) -> (line: Int?, jsonPath: String?) {
        sequence.source.file.pathExtension.lowercased() == "json" ? (nil, "joints") : (sequence.source.headerLine, nil)
    }

    /// The names of `folder`'s real subfolders that directly hold pose clip files.
    private static func foldersHoldingClips(in folder: URL) -> [String] {
        ((try? sortedEntries(of: folder)) ?? []).filter { DataFiles.isRealFolder($0) }.filter { sub in
            ((try? sortedEntries(of: sub)) ?? []).contains { PoseClipReader.fileExtensions.contains($0.pathExtension.lowercased()) }
        }.map(\.lastPathComponent)
    }

    private static func sortedEntries(of folder: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles])
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// The error for a reader that produced nothing without logging why (not expected to happen).
    private static func unreachable(_ url: URL) throws -> PoseDataset {
        throw PoseDataError(problems: [PoseDataProblem(file: url.path, message: "could not be read")])
    }
}
