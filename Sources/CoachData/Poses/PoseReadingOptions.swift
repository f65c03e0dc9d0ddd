/// How pose files are read.
public struct PoseReadingOptions: Hashable, Sendable {
    /// Frames per second of files that carry no `time` (default 30): row `i` is at `i / frameRate`
    /// seconds, and a `frame` column `f` is at `f / frameRate` seconds.
    public var frameRate: Double
    /// The origin of the files' coordinates; `bottomLeft` flips y to 1 − y so poses come out top-left.
    public var keypointOrigin: KeypointOrigin

    /// Options with the defaults of FORMATS.md (30 fps, top-left origin).
    public init(frameRate: Double = 30, keypointOrigin: KeypointOrigin = .topLeft) {
        self.frameRate = frameRate
        self.keypointOrigin = keypointOrigin
    }
}
