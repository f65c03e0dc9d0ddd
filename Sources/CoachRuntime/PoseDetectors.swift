import CoachData
import CoachModels
import Foundation

@_exported import struct CoachData.RGBImage

/// A person's pose in one frame, as Vision reports it: body18 joints by name (normalised to the
/// image, origin top-left) with confidences, plus MediaPipe's full 33 landmarks.
public struct BodyPoseObservation: Sendable {
    /// `JointSet.body18` keypoints in order — what `ActionClassifier.append(_:at:)` takes.
    public var keypoints: [Keypoint?]
    /// The same joints by name.
    public var joints: [String: Keypoint] {
        Dictionary(uniqueKeysWithValues: zip(JointSet.body18.names, keypoints).compactMap { name, k in k.map { (name, $0) } })
    }
    /// All 33 BlazePose landmarks (`BodyLandmarks.names`).
    public var landmarks: BodyLandmarks
}

/// A hand in one frame: hand21 joints by name, which hand it is, and the detector's score.
public struct HandPoseObservation: Sendable {
    /// `JointSet.hand21` keypoints in order — what `HandPoseClassifier.prediction(for:chirality:)` takes.
    public var keypoints: [Keypoint?]
    public var joints: [String: Keypoint] {
        Dictionary(uniqueKeysWithValues: zip(JointSet.hand21.names, keypoints).compactMap { name, k in k.map { (name, $0) } })
    }
    /// The person's left or right hand.
    public var chirality: Chirality
    /// The model's confidence that this is a hand.
    public var score: Float
    public var landmarks: HandLandmarks
}

/// Finds a person's body pose frame by frame (MediaPipe's BlazePose run by Coach's engine), like
/// Vision's `VNDetectHumanBodyPoseRequest`: feed camera frames in order and pass each
/// observation's `keypoints` to an `ActionClassifier`. Between frames the person is tracked (the
/// detector runs again only when the person is lost) and landmarks are smoothed.
public final class BodyPoseDetector {
    var tracker: BodyPoseTracker

    /// A detector using the imported models in `modelFolder` (`coach import-pose-models` writes them).
    public init(modelFolder: URL, smoothing: Bool = true) throws {
        tracker = BodyPoseTracker(estimator: try BodyPoseEstimator(folder: modelFolder), smoothing: smoothing)
    }

    /// The pose in `frame` (RGB, upright) taken at `time` seconds; nil when no person is seen.
    public func observe(_ frame: RGBImage, at time: Double) -> BodyPoseObservation? {
        tracker.process(frame, time: time).map { BodyPoseObservation(keypoints: $0.body18Keypoints, landmarks: $0) }
    }

    /// The pose in an independent photo (no tracking or smoothing).
    public func observe(photo: RGBImage) -> BodyPoseObservation? {
        tracker.estimator.estimate(photo).map { BodyPoseObservation(keypoints: $0.body18Keypoints, landmarks: $0) }
    }

    /// Forgets the tracked person (start of a new clip).
    public func reset() { tracker.reset() }
}

/// Finds up to `maximumHands` hands frame by frame (MediaPipe's palm and hand models run by
/// Coach's engine), like Vision's `VNDetectHumanHandPoseRequest`.
public final class HandPoseDetector {
    var tracker: HandPoseTracker
    /// Whether frames are mirrored (a front camera's selfie view): decides chirality.
    public var mirrored: Bool

    public init(modelFolder: URL, maximumHands: Int = 2, mirrored: Bool = false, smoothing: Bool = true) throws {
        var estimator = try HandPoseEstimator(folder: modelFolder)
        estimator.maximumHands = max(1, maximumHands)
        tracker = HandPoseTracker(estimator: estimator, smoothing: smoothing)
        self.mirrored = mirrored
    }

    func observation(_ hand: HandLandmarks) -> HandPoseObservation {
        HandPoseObservation(keypoints: hand.hand21Keypoints, chirality: hand.chirality(mirrored: mirrored), score: hand.score, landmarks: hand)
    }

    /// The hands in `frame` taken at `time` seconds.
    public func observe(_ frame: RGBImage, at time: Double) -> [HandPoseObservation] {
        tracker.process(frame, time: time).map(observation)
    }

    /// The hands in an independent photo.
    public func observe(photo: RGBImage) -> [HandPoseObservation] {
        tracker.estimator.estimate(photo).map(observation)
    }

    public func reset() { tracker.reset() }
}
