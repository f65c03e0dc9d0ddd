/// One decoded video frame: upright RGB pixels and when the frame is shown.
public struct VideoFrame: Equatable, Sendable {
    /// The frame as it is meant to be seen (the stream's rotation already applied).
    public var image: RGBImage
    /// Seconds from the start of the stream (presentation time minus the stream's start time).
    public var time: Double
    /// The frame's position in display order, counting from 0.
    public var index: Int
    /// Whether the decoder met damaged data in this frame and concealed it (its pixels are
    /// partly guessed from neighbouring ones, as a player shows a damaged file).
    public var isDamaged: Bool

    /// A frame from its image, time in seconds and index.
    public init(image: RGBImage, time: Double, index: Int, isDamaged: Bool = false) {
        self.image = image
        self.time = time
        self.index = index
        self.isDamaged = isDamaged
    }
}
