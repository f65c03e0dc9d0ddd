import Foundation

/// One row of a Create ML action-classifier annotation file (FORMATS §3.6): which clip, which label, which seconds.
public struct PoseAnnotation: Hashable, Sendable {
    /// The `file` (or `video`) value as written.
    public var reference: String
    /// The pose file it resolves to (relative to the annotation file's folder; a video name resolves
    /// to the `.csv` or `.json` with the same stem).
    public var poseFile: URL
    /// The class label.
    public var label: String
    /// Start in seconds, or nil for the clip's start.
    public var start: Double?
    /// End in seconds, or nil for the clip's end.
    public var end: Double?
    /// The annotation file.
    public var annotationFile: URL
    /// The 1-based line in a CSV annotation file.
    public var line: Int?
    /// The JSON path (`[3]`) in a JSON annotation file.
    public var jsonPath: String?

    /// An annotation of `poseFile` (written `reference`) with `label` over `start`…`end` seconds.
    public init(reference: String, poseFile: URL, label: String, start: Double? = nil, end: Double? = nil,
                annotationFile: URL, line: Int? = nil, jsonPath: String? = nil) {
        self.reference = reference
        self.poseFile = poseFile
        self.label = label
        self.start = start
        self.end = end
        self.annotationFile = annotationFile
        self.line = line
        self.jsonPath = jsonPath
    }

    /// The labeled segment this annotation describes.
    public var segment: PoseSegment { PoseSegment(label: label, start: start, end: end) }

    /// A problem located at this annotation's line or JSON path.
    func problem(_ message: String) -> PoseDataProblem {
        PoseDataProblem(file: annotationFile.path, line: line, jsonPath: jsonPath, message: message)
    }
}
