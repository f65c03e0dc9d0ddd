import Foundation

/// How pose files are read.
public struct PoseReadingOptions: Hashable, Sendable {
    /// Frames per second of files that carry no `time` (default 30): row `i` is at `i / frameRate`
    /// seconds, and a `frame` column `f` is at `f / frameRate` seconds.
    public var frameRate: Double
    /// The origin of the files' coordinates; `bottomLeft` flips y to 1 − y so poses come out top-left.
    public var keypointOrigin: KeypointOrigin

    /// How videos and photos named where a pose clip is expected become clips (Coach's pose
    /// extraction, injected by the caller); nil: media are an error that says how to get poses.
    public var media: MediaPoseReader?

    /// Options with the defaults of FORMATS.md (30 fps, top-left origin).
    public init(frameRate: Double = 30, keypointOrigin: KeypointOrigin = .topLeft, media: MediaPoseReader? = nil) {
        self.frameRate = frameRate
        self.keypointOrigin = keypointOrigin
        self.media = media
    }
}

/// Turns a video, photo or photo folder into a pose clip (poses normalised, origin top-left).
/// Compared and hashed by `identifier` (e.g. the joints and the models' digests).
public struct MediaPoseReader: Hashable, Sendable {
    public let identifier: String
    public let read: @Sendable (URL) throws -> PoseSequence

    public init(identifier: String, read: @escaping @Sendable (URL) throws -> PoseSequence) {
        self.identifier = identifier
        self.read = read
    }

    public static func == (a: MediaPoseReader, b: MediaPoseReader) -> Bool { a.identifier == b.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
}
