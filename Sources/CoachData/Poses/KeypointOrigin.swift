/// Where a file's keypoint coordinates have their origin.
public enum KeypointOrigin: String, Codable, Hashable, Sendable, CaseIterable {
    /// Origin at the image's top-left corner, y growing downwards (Coach's and Create ML's default).
    case topLeft = "top-left"
    /// Origin at the bottom-left corner, y growing upwards (Vision's convention); read as y → 1 − y.
    case bottomLeft = "bottom-left"
}
