import Foundation

/// Why `TrajectoryDetector.process(_:at:)` rejected a frame (the detector's state is unchanged).
public enum TrajectoryDetectionError: LocalizedError, Equatable, Sendable {
    /// The frame's time is NaN or infinite.
    case invalidTime(Double)
    /// The frame's time is not after the previous frame's.
    case timeNotIncreasing(previous: Double, current: Double)
    /// The frame's size differs from the size of the frames before it.
    case frameSizeChanged(expectedWidth: Int, expectedHeight: Int, width: Int, height: Int)
    /// The region of interest does not overlap the frame (after clamping to 0…1).
    case emptyRegionOfInterest(NormalizedRect)

    /// A message saying what went wrong and what to do.
    public var errorDescription: String? {
        switch self {
        case .invalidTime(let time):
            return "frame time \(time) is not a finite number of seconds; pass the frame's presentation time"
        case .timeNotIncreasing(let previous, let current):
            return "frame time \(current) s is not after the previous frame's \(previous) s; "
                + "pass frames in presentation order, or call reset() before starting another video"
        case .frameSizeChanged(let expectedWidth, let expectedHeight, let width, let height):
            return "frame is \(width)×\(height) but the sequence's frames are \(expectedWidth)×\(expectedHeight); "
                + "call reset() before analysing frames of another size"
        case .emptyRegionOfInterest(let region):
            return "region of interest (x \(region.x), y \(region.y), width \(region.width), height \(region.height)) "
                + "does not overlap the frame; use a normalised rectangle inside 0…1 with positive width and height"
        }
    }
}
