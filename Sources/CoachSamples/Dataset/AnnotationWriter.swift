import CoachData
import Foundation

/// Writes generated clips into a folder one by one and, at the end, the Create ML annotation
/// file listing every segment (FORMATS.md §3.6: `file,label,start,end`), returning the summary.
struct AnnotationWriter {
    private var summary: ThrowDatasetSummary
    private var annotations: [(file: String, segment: PoseSegment)] = []
    private let format: ThrowDatasetConfiguration.AnnotationFormat
    private var performers = Set<Int>(), trials = Set<String>()

    /// A writer into `directory` (which must exist).
    init(directory: URL, format: ThrowDatasetConfiguration.AnnotationFormat) {
        self.format = format
        summary = ThrowDatasetSummary(directory: directory, annotationFile: directory, clipFiles: [], clipsPerClass: [:],
                                      segmentsPerLabel: [:], secondsPerLabel: [:], frameCount: 0, jsonClipCount: 0,
                                      performers: [], motionCaptureTrials: [])
    }

    /// Writes one clip's file and remembers its segments.
    mutating func write(_ clip: GeneratedClip) throws {
        try SyntheticFileWriting.write(clip.fileText(), to: summary.directory.appendingPathComponent(clip.fileName))
        summary.clipFiles.append(clip.fileName)
        summary.clipsPerClass[clip.label, default: 0] += 1
        summary.frameCount += clip.frames.count
        if clip.writesJSON { summary.jsonClipCount += 1 }
        switch clip.source {
        case .scripted(let performer): performers.insert(performer)
        case .motionCapture(let trial): trials.insert(trial)
        }
        for segment in clip.segments {
            annotations.append((clip.fileName, segment))
            summary.segmentsPerLabel[segment.label, default: 0] += 1
            let clipEnd = clip.frames.last?.time ?? 0
            summary.secondsPerLabel[segment.label, default: 0] += (segment.end ?? clipEnd) - (segment.start ?? 0)
        }
    }

    /// Writes the annotation file and returns the summary.
    mutating func finish() throws -> ThrowDatasetSummary {
        var text = SyntheticTextBuffer()
        switch format {
        case .csv:
            summary.annotationFile = summary.directory.appendingPathComponent("annotations.csv")
            text.append("file,label,start,end\n")
            for (file, segment) in annotations {
                text.append("\(file),\(segment.label),")   // an empty bound is the clip's own (FORMATS §3.6)
                if let start = segment.start { text.append(start, decimals: 3) }
                text.append(byte: 44)
                if let end = segment.end { text.append(end, decimals: 3) }
                text.append(byte: 10)
            }
        case .json:
            summary.annotationFile = summary.directory.appendingPathComponent("annotations.json")
            text.append("[\n")
            for (index, (file, segment)) in annotations.enumerated() {
                text.append("  {\"file\": \"\(file)\", \"label\": \"\(segment.label)\"")
                if let start = segment.start {
                    text.append(", \"start\": ")
                    text.append(start, decimals: 3)
                }
                if let end = segment.end {
                    text.append(", \"end\": ")
                    text.append(end, decimals: 3)
                }
                text.append(index + 1 < annotations.count ? "},\n" : "}\n")
            }
            text.append("]\n")
        }
        try SyntheticFileWriting.write(text.bytes, to: summary.annotationFile)
        summary.performers = performers.sorted()
        summary.motionCaptureTrials = trials.sorted()
        return summary
    }
}
