import Foundation

extension SinglePoseSet {
    /// Loads labeled single poses from `url`, in any form FORMATS.md allows for them:
    /// - a single-pose table CSV (§3.5: `label,[chirality,]<joint>_x,<joint>_y,…`, one row per pose);
    /// - a folder per class of clip files (§3.2, §3.3), a table of clips (§3.4, with `sequence`) or an
    ///   action annotation file (§3.6): every frame of every labeled clip or segment is one pose,
    ///   carrying its clip's label and chirality.
    ///
    /// Clip frames keep the file and, for one-clip CSV files read whole, the line of their row.
    /// - Throws: `PoseDataError` listing every problem in every file.
    public static func load(_ url: URL, options: PoseReadingOptions = PoseReadingOptions()) throws -> SinglePoseSet {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw PoseDataError(problems: [PoseDataProblem(file: url.path, message: "does not exist: expected a single-pose table CSV or a folder of class folders of pose clips")])
        }
        if isDirectory.boolValue { return flattening(try PoseDataset.loadClassFolders(url, options: options)) }
        if url.pathExtension.lowercased() == "csv" {
            var log = PoseProblemLog()
            guard let table = CSVTable.read(url, log: &log) else {
                try log.throwIfAny()
                throw PoseDataError(problems: [PoseDataProblem(file: url.path, message: "could not be read")])
            }
            let names = Set(table.header.map { $0.lowercased() })
            if !names.contains("sequence") && !names.contains("file") && !names.contains("video") {
                let set = read(table, options: options, log: &log)
                try log.throwIfAny()
                guard let set else { throw PoseDataError(problems: [PoseDataProblem(file: url.path, message: "could not be read")]) }
                return set
            }
        }
        return flattening(try PoseDataset.load(url, options: options))
    }

    /// Every frame of every example of `dataset` as one pose labeled like its example.
    public static func flattening(_ dataset: PoseDataset) -> SinglePoseSet {
        var poses: [SinglePose] = []
        for example in dataset.examples {
            let sequence = example.sequence
            let clip = dataset.clips[example.clipIndex].sequence
            // Rows map to lines only for a one-clip CSV read whole (one row per frame, in order).
            let isWholeFile = sequence.frames.count == clip.frames.count && sequence.source.sequence == nil
            let firstLine = isWholeFile ? sequence.source.line : nil
            for (index, frame) in sequence.frames.enumerated() {
                var source = sequence.source
                source.line = firstLine.map { $0 + index }
                poses.append(SinglePose(label: example.label, keypoints: frame.keypoints, chirality: sequence.chirality,
                                        source: source))
            }
        }
        return SinglePoseSet(jointSet: dataset.jointSet, hasDepth: dataset.hasDepth, poses: poses)
    }
}

extension SinglePoseSet {
    /// Reads poses to classify from one file: a single-pose CSV (§3.5, the `label` column optional:
    /// labels are empty without it), or one clip (§3.2 CSV with a `time` or `frame` column, §3.3
    /// JSON) whose every frame is one pose with the clip's chirality.
    /// - Throws: `PoseDataError` listing every problem with its line or JSON path.
    public static func readPoses(_ file: URL, options: PoseReadingOptions = PoseReadingOptions()) throws -> SinglePoseSet {
        var log = PoseProblemLog()
        var result: SinglePoseSet? = nil
        switch MediaKind.of(file) != nil ? "media" : file.pathExtension.lowercased() {
        case "json", "media":
            if let clip = PoseClipReader.read(file, options: options, log: &log) { result = poses(of: clip) }
        case "csv":
            guard let table = CSVTable.read(file, log: &log) else { break }
            let names = Set(table.header.map { $0.lowercased() })
            if names.contains("time") || names.contains("frame") {
                if PoseClipReader.checkFrameRate(options, file: file, log: &log),
                   let layout = PoseColumnLayout.make(for: table, allowed: [.time, .frame, .chirality], log: &log) {
                    if table.records.isEmpty {
                        log.add(file, line: table.headerLine, "has a header but no rows: expected one row per frame after the header")
                    } else {
                        let clip = PoseClipReader.clip(records: table.records, table: table, layout: layout,
                                                       source: PoseSource(file: file, line: table.records[0].line),
                                                       options: options, log: &log)
                        result = poses(of: clip)
                    }
                }
            } else {
                result = read(table, options: options, requiringLabels: false, log: &log)
            }
        default:
            log.add(file, "has extension '.\(file.pathExtension)': expected a single-pose CSV or a pose clip (.csv, .json)")
        }
        try log.throwIfAny()
        guard let result else { throw PoseDataError(problems: [PoseDataProblem(file: file.path, message: "could not be read")]) }
        return result
    }

    /// Every frame of `clip` as an unlabeled pose with the clip's chirality.
    static func poses(of clip: PoseSequence) -> SinglePoseSet {
        let poses = clip.frames.enumerated().map { index, frame -> SinglePose in
            var source = clip.source
            source.line = clip.source.line.map { $0 + index }
            return SinglePose(label: "", keypoints: frame.keypoints, chirality: clip.chirality, source: source)
        }
        return SinglePoseSet(jointSet: clip.jointSet, hasDepth: clip.hasDepth, poses: poses)
    }
}
