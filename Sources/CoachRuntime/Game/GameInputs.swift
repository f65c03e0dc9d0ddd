import CoachData
import Foundation

/// Where a game's body poses come from, frame by frame: Coach's `BodyPoseDetector`, or any other
/// source (a different detector, poses recorded with the video, a test's known joints).
public protocol BodyPoseSource: AnyObject {
    /// The player's `JointSet.body18` keypoints in `frame` (taken at `time` seconds), normalised to
    /// the frame with the origin at the top left; nil when no person is seen.
    func bodyPose(in frame: RGBImage, at time: Double) -> [Keypoint?]?
}

extension BodyPoseDetector: BodyPoseSource {
    /// The detector's body18 keypoints for `frame`.
    public func bodyPose(in frame: RGBImage, at time: Double) -> [Keypoint?]? {
        observe(frame, at: time)?.keypoints
    }
}

/// Poses known in advance, one per frame time (e.g. recorded alongside the video).
public final class RecordedBodyPoses: BodyPoseSource {
    /// The poses by frame, in time order.
    public let frames: [PoseFrame]
    /// How far from a frame's time a recorded pose may be: half the poses' median spacing (a
    /// video's decoded times and a pose file's written times differ by rounding).
    public let tolerance: Double

    /// Poses at the given times (body18 keypoints, normalised, origin top-left).
    public init(frames: [PoseFrame]) {
        self.frames = frames.sorted { $0.time < $1.time }
        let gaps = zip(self.frames, self.frames.dropFirst()).map { $1.time - $0.time }.filter { $0 > 0 }.sorted()
        tolerance = gaps.isEmpty ? 1e-3 : gaps[gaps.count / 2] / 2
    }

    /// The recorded pose nearest `time`, if one lies within `tolerance` of it.
    public func bodyPose(in frame: RGBImage, at time: Double) -> [Keypoint?]? {
        var low = 0, high = frames.count
        while low < high {
            let middle = (low + high) / 2
            if frames[middle].time < time { low = middle + 1 } else { high = middle }
        }
        let candidates = [low - 1, low].filter { $0 >= 0 && $0 < frames.count }
        guard let nearest = candidates.min(by: { abs(frames[$0].time - time) < abs(frames[$1].time - time) }),
              abs(frames[nearest].time - time) <= tolerance else { return nil }
        let keypoints = frames[nearest].keypoints
        return keypoints.contains { $0 != nil } ? keypoints : nil
    }
}

/// Finds the board in a frame: the game's first step.
public protocol BoardLocator {
    /// The board's box in `frame` (pixels, origin top-left) and the confidence, or nil.
    func locateBoard(in frame: RGBImage) -> (box: PixelBox, confidence: Double)?
}

extension ObjectDetector: BoardLocator {
    /// The most confident detection labelled `board` (any label when the model has no such
    /// class), as the Action & Vision app takes its detector's top observation.
    public func locateBoard(in frame: RGBImage) -> (box: PixelBox, confidence: Double)? {
        guard let detections = try? detect(in: frame) else { return nil }
        let boards = classLabels.contains("board") ? detections.filter { $0.label == "board" } : detections
        guard let best = boards.max(by: { $0.confidence < $1.confidence }) else { return nil }
        let rect = best.boundingBox.pixelRect(imageWidth: frame.width, imageHeight: frame.height)
        return (PixelBox(x: rect.x, y: rect.y, width: rect.width, height: rect.height), best.confidence)
    }
}

/// A board whose box is known (given by the user, or fixed by a test).
public struct FixedBoardLocator: BoardLocator {
    /// The board's box in pixels.
    public var box: PixelBox

    /// A locator that always answers `box`.
    public init(box: PixelBox) { self.box = box }

    /// The largest share of the frame's area a board's box may cover: the game needs the player and
    /// the bag's flight beside the board, so a box over most of the frame is not a board's.
    public static let maximumFrameShare = 0.5

    /// `box`, with confidence 1, when it overlaps the frame and covers at most
    /// `maximumFrameShare` of it.
    public func locateBoard(in frame: RGBImage) -> (box: PixelBox, confidence: Double)? {
        guard box.x < Double(frame.width), box.y < Double(frame.height), box.x + box.width > 0, box.y + box.height > 0,
              frameShare(width: frame.width, height: frame.height) <= Self.maximumFrameShare
        else { return nil }
        return (box, 1)
    }

    /// The share of a `width × height` frame's area the box covers (its part inside the frame).
    public func frameShare(width: Int, height: Int) -> Double {
        let w = max(0, min(box.x + box.width, Double(width)) - max(box.x, 0))
        let h = max(0, min(box.y + box.height, Double(height)) - max(box.y, 0))
        return w * h / max(Double(width * height), 1)
    }
}
