import CoachData
import CoachModels
import Foundation

/// Classifies actions from a live stream of body or hand poses with a Coach action-classifier
/// model file — the sliding-window loop of Apple's Action & Vision app.
///
/// Poses may arrive at any rate: they are resampled to the model's frame rate (a 60 fps camera is
/// halved to a 30 fps model) into a first-in-first-out window of the model's length. Once the
/// window is full, every `stride` frames the window is classified. Windows are encoded by the
/// model's own input encoding, the one training used.
///
/// ```swift
/// import CoachRuntime
///
/// let classifier = try ActionClassifier(contentsOf: URL(fileURLWithPath: "throws.h5"))
/// classifier.confidenceThreshold = 0.6
/// for (time, joints) in cameraPoses {            // joints: [String: Keypoint] by joint name
///     for prediction in classifier.append(joints: joints, at: time) {
///         if let label = prediction.label {
///             print("\(label) \(prediction.confidence) \(prediction.startTime)–\(prediction.endTime) s")
///         }
///     }
/// }
/// ```
public final class ActionClassifier {
    /// The loaded model.
    public let model: ActionClassifierModel
    /// Frames between predictions once the window is full (at least 1; default a quarter window).
    public var stride: Int {
        didSet { stride = max(stride, 1) }
    }
    /// Predictions whose confidence is below this have a nil `label` (default 0: always labelled).
    public var confidenceThreshold: Float = 0
    /// The origin of the coordinates given to `append`; `.bottomLeft` (Vision's) flips y to 1 − y.
    /// Defaults to the origin of the keypoints the model was trained on.
    public var keypointOrigin: KeypointOrigin
    /// A pose arriving this many seconds after the previous one starts a new window (the person
    /// was lost); default 0.5 s.
    public var maximumGap: Double = 0.5

    private var resampler: PoseStreamResampler
    private var buffer: [PoseFrame] = []
    private var framesSincePrediction = 0
    private var hasPredicted = false
    private var lastTime: Double?
    private var chirality: Chirality?

    /// Loads the action classifier in the model file at `url`.
    /// - Throws: `ModelFileError` for a missing, damaged or foreign file or mismatched weights.
    public convenience init(contentsOf url: URL) throws {
        self.init(model: try ActionClassifierModel(contentsOf: url))
    }

    /// A classifier running `model`.
    public init(model: ActionClassifierModel) {
        self.model = model
        self.stride = model.defaultWindowStride
        self.keypointOrigin = model.keypointOrigin
        self.resampler = PoseStreamResampler(frameRate: model.frameRate)
    }

    /// The class labels, in the model's order.
    public var labels: [String] { model.labels }
    /// The joint names, in the order `append(_:at:)` takes keypoints.
    public var jointNames: [String] { model.jointSet.names }
    /// Frames per window.
    public var windowLength: Int { model.windowLength }
    /// The model's frame rate (frames per second).
    public var frameRate: Double { model.frameRate }
    /// Frames in the window so far (up to `windowLength`).
    public var bufferedFrameCount: Int { buffer.count }

    /// Adds the pose observed at `time` (seconds, increasing), with one keypoint per joint in
    /// `jointNames` order (nil, or confidence 0, for a joint not detected), and returns the
    /// predictions that became due — usually none or one.
    public func append(_ keypoints: [Keypoint?], at time: Double, chirality: Chirality? = nil) -> [ActionPrediction] {
        var points = Array(keypoints.prefix(model.jointSet.count))
        if points.count < model.jointSet.count { points += [Keypoint?](repeating: nil, count: model.jointSet.count - points.count) }
        if keypointOrigin == .bottomLeft {
            points = points.map { $0.map { var p = $0; p.y = 1 - p.y; return p } }
        }
        points = points.map { point in
            guard let point, point.confidence > 0, point.x.isFinite, point.y.isFinite else { return nil }
            return point
        }
        if let lastTime, time - lastTime > maximumGap { reset() }
        if let lastTime, time <= lastTime { return [] }
        lastTime = time
        if let chirality { self.chirality = chirality }
        var predictions: [ActionPrediction] = []
        for frame in resampler.append(PoseFrame(time: time, keypoints: points)) {
            buffer.append(frame)
            if buffer.count > model.windowLength { buffer.removeFirst(buffer.count - model.windowLength) }
            framesSincePrediction += 1
            guard buffer.count == model.windowLength else { continue }
            if !hasPredicted || framesSincePrediction >= stride {
                predictions.append(prediction(for: currentWindow()))
                framesSincePrediction = 0
                hasPredicted = true
            }
        }
        return predictions
    }

    /// Adds a pose given by joint name (Vision's recognised points); joints the model does not
    /// use are ignored and missing ones count as not detected. See `append(_:at:chirality:)`.
    public func append(joints: [String: Keypoint], at time: Double, chirality: Chirality? = nil) -> [ActionPrediction] {
        append(model.jointSet.names.map { joints[$0] }, at: time, chirality: chirality)
    }

    /// Empties the window (e.g. when the tracked person changes).
    public func reset() {
        buffer.removeAll()
        resampler.reset()
        framesSincePrediction = 0
        hasPredicted = false
        lastTime = nil
        chirality = nil
    }

    /// The current window (padded with zero poses at the end while not yet full).
    public func currentWindow() -> PoseWindow {
        var window = PoseWindow(frames: buffer[...], frameCount: model.windowLength, jointCount: model.jointSet.count,
                                hasDepth: model.encoding.includesDepth, frameRate: model.frameRate, chirality: chirality)
        window.chirality = chirality
        return window
    }

    /// Classifies one window (of the model's length and joints).
    public func prediction(for window: PoseWindow) -> ActionPrediction {
        predictions(for: [window])[0]
    }

    /// Classifies windows together (faster than one by one).
    public func predictions(for windows: [PoseWindow]) -> [ActionPrediction] {
        zip(windows, model.probabilities(for: windows)).map { window, probabilities in
            var best = 0
            for i in probabilities.indices where probabilities[i] > probabilities[best] { best = i }
            let confident = probabilities[best] >= confidenceThreshold
            return ActionPrediction(label: confident ? model.labels[best] : nil, topLabel: model.labels[best],
                                    confidence: probabilities[best],
                                    probabilities: Array(zip(model.labels, probabilities)).map { ($0.0, $0.1) },
                                    startTime: window.startTime, endTime: window.endTime)
        }
    }

    /// Classifies a whole recorded clip: windows every `stride` frames (default: this classifier's
    /// stride) after resampling to the model's rate; a clip shorter than the window gives one
    /// window padded with zero poses.
    /// - Throws: `ActionClassifierError` when the clip's joints do not fit the model.
    public func predictions(for sequence: PoseSequence, stride: Int? = nil) throws -> [ActionPrediction] {
        predictions(for: try model.windows(covering: sequence, stride: stride ?? self.stride))
    }
}
