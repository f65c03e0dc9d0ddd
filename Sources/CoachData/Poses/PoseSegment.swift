/// A labeled stretch of a clip: `start`…`end` seconds (nil bounds mean the clip's own start or end).
public struct PoseSegment: Hashable, Sendable {
    /// The class label.
    public var label: String
    /// Start in seconds (inclusive), or nil for the clip's start.
    public var start: Double?
    /// End in seconds (exclusive), or nil for the clip's end.
    public var end: Double?

    /// A segment labeled `label` from `start` to `end` seconds (nil: the whole clip on that side).
    public init(label: String, start: Double? = nil, end: Double? = nil) {
        self.label = label
        self.start = start
        self.end = end
    }
}
