/// One detected joint: its position and the detector's confidence (K channels x, y, [z,] confidence).
public struct Keypoint: Hashable, Sendable {
    /// Horizontal position (normalised 0…1 from the left, or the file's own consistent unit).
    public var x: Float
    /// Vertical position (normalised 0…1 from the top after reading, or the file's own unit).
    public var y: Float
    /// Depth, when the file has one.
    public var z: Float?
    /// Detection confidence in 0…1 (1 when the file gives none); a joint with confidence 0 is not stored.
    public var confidence: Float

    /// A keypoint at (x, y[, z]) with `confidence` (default 1).
    public init(x: Float, y: Float, z: Float? = nil, confidence: Float = 1) {
        self.x = x
        self.y = y
        self.z = z
        self.confidence = confidence
    }
}
