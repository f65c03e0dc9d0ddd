/// A labeled stretch of a clip, as written to a Create ML action annotation file
/// (FORMATS.md §3.6: `file,label,start,end`).
public struct SyntheticSegment: Equatable, Sendable {
    /// The class label (`overhand`, …, or the background label).
    public var label: String
    /// Seconds from the start of the clip.
    public var start: Double
    /// Seconds from the start of the clip.
    public var end: Double

    /// A segment labeled `label` from `start` to `end`.
    public init(label: String, start: Double, end: Double) {
        self.label = label
        self.start = start
        self.end = end
    }
}
