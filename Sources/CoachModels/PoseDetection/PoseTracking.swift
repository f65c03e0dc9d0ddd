import CoachData
import Foundation

/// The One-Euro filter (Casiez, Roussel & Vogel, CHI 2012) as MediaPipe's landmark smoothing runs
/// it: a low-pass filter whose cut-off rises with the (scaled) speed, so slow jitter is smoothed
/// and fast motion is not lagged.
public struct OneEuroFilter: Sendable {
    public var minimumCutoff: Double
    public var beta: Double
    public var derivativeCutoff: Double
    var lastTime: Double?
    var lastRaw: Double?
    var value: Double?
    var derivative: Double?

    public init(minimumCutoff: Double = 0.05, beta: Double = 80, derivativeCutoff: Double = 1) {
        self.minimumCutoff = minimumCutoff
        self.beta = beta
        self.derivativeCutoff = derivativeCutoff
    }

    static func alpha(cutoff: Double, period: Double) -> Double {
        let tau = 1 / (2 * .pi * cutoff)
        return 1 / (1 + tau / period)
    }

    /// The filtered `raw` at `time` (seconds); `scale` turns the value's change into the unit the
    /// speed term expects (MediaPipe: one over the object's size). A time not after the last one
    /// returns `raw` unchanged.
    public mutating func filter(_ raw: Double, time: Double, scale: Double = 1) -> Double {
        guard let lastTime, let lastRaw, let value, time > lastTime else {
            if self.lastTime == nil || time > self.lastTime! {
                self.lastTime = time
                self.lastRaw = raw
                self.value = raw
                self.derivative = 0
            }
            return raw
        }
        let period = time - lastTime
        let speed = (raw - lastRaw) * scale / period
        let a = OneEuroFilter.alpha(cutoff: derivativeCutoff, period: period)
        let smoothedSpeed = a * speed + (1 - a) * (derivative ?? 0)
        let cutoff = minimumCutoff + beta * abs(smoothedSpeed)
        let b = OneEuroFilter.alpha(cutoff: cutoff, period: period)
        let result = b * raw + (1 - b) * value
        self.lastTime = time
        self.lastRaw = raw
        self.value = result
        self.derivative = smoothedSpeed
        return result
    }
}

/// One-Euro filters over a set of landmarks' pixel coordinates, scaled by the landmarks' size.
struct LandmarkSmoother: Sendable {
    var filters: [OneEuroFilter] = []
    var prototype = OneEuroFilter()

    mutating func reset() { filters = [] }

    mutating func smooth(_ points: [PoseLandmark], time: Double, imageWidth: Int, imageHeight: Int) -> [PoseLandmark] {
        guard !points.isEmpty else { return points }
        if filters.count != points.count * 3 { filters = [OneEuroFilter](repeating: prototype, count: points.count * 3) }
        let w = Double(imageWidth), h = Double(imageHeight)
        let xs = points.map { Double($0.x) * w }, ys = points.map { Double($0.y) * h }
        let size = ((xs.max()! - xs.min()!) + (ys.max()! - ys.min()!)) / 2
        let scale = size > 0 ? 1 / size : 1
        return points.enumerated().map { index, point in
            var p = point
            p.x = Float(filters[3 * index].filter(xs[index], time: time, scale: scale) / w)
            p.y = Float(filters[3 * index + 1].filter(ys[index], time: time, scale: scale) / h)
            p.z = Float(filters[3 * index + 2].filter(Double(point.z) * w, time: time, scale: scale) / w)
            return p
        }
    }
}

/// MediaPipe's body pipeline over a video: the person detector runs only when no person is being
/// tracked; otherwise each frame's region comes from the previous frame's two auxiliary points
/// (smoothed more strongly, as MediaPipe's `pose_landmark_filtering` does, so the region does not
/// wobble with them), and landmarks are smoothed over time.
public struct BodyPoseTracker: Sendable {
    public var estimator: BodyPoseEstimator
    /// Smooth landmarks with the One-Euro filter (off for independent photos).
    public var smoothing: Bool
    var previous: BodyLandmarks?
    var smoother = LandmarkSmoother()
    var auxiliarySmoother = LandmarkSmoother(prototype: OneEuroFilter(minimumCutoff: 0.01, beta: 10, derivativeCutoff: 1))

    public init(estimator: BodyPoseEstimator, smoothing: Bool = true) {
        self.estimator = estimator
        self.smoothing = smoothing
    }

    /// Forgets the tracked person (call between unrelated clips).
    public mutating func reset() {
        previous = nil
        smoother.reset()
        auxiliarySmoother.reset()
    }

    /// The person in `image` (a frame at `time` seconds), nil when there is none.
    public mutating func process(_ image: RGBImage, time: Double) -> BodyLandmarks? {
        var pose: BodyLandmarks?
        if let previous {
            pose = estimator.landmarks(in: image, region: estimator.region(following: previous, imageWidth: image.width, imageHeight: image.height))
        }
        if pose == nil {
            smoother.reset()
            auxiliarySmoother.reset()
            pose = estimator.estimate(image)
        }
        guard var result = pose else {
            previous = nil
            return nil
        }
        if smoothing {
            result.landmarks = smoother.smooth(result.landmarks, time: time, imageWidth: image.width, imageHeight: image.height)
            result.auxiliary = auxiliarySmoother.smooth(result.auxiliary, time: time, imageWidth: image.width, imageHeight: image.height)
        }
        previous = result
        return result
    }
}

/// MediaPipe's hand pipeline over a video: tracked hands take their next region from their
/// landmarks; the palm detector runs only while fewer than `maximumHands` hands are tracked.
public struct HandPoseTracker: Sendable {
    public var estimator: HandPoseEstimator
    public var smoothing: Bool
    var previous: [HandLandmarks] = []
    var smoothers: [LandmarkSmoother] = []

    public init(estimator: HandPoseEstimator, smoothing: Bool = true) {
        self.estimator = estimator
        self.smoothing = smoothing
    }

    public mutating func reset() {
        previous = []
        smoothers = []
    }

    /// The hands in `image` (a frame at `time` seconds), tracked ones first.
    public mutating func process(_ image: RGBImage, time: Double) -> [HandLandmarks] {
        var hands: [HandLandmarks] = []
        var keptSmoothers: [LandmarkSmoother] = []
        for (index, hand) in previous.enumerated() {
            let region = HandPoseTracker.region(following: hand, imageWidth: image.width, imageHeight: image.height)
            if let found = estimator.landmarks(in: image, region: region) {
                hands.append(found)
                keptSmoothers.append(index < smoothers.count ? smoothers[index] : LandmarkSmoother())
            }
        }
        if hands.count < estimator.maximumHands {
            for detection in estimator.detections(in: image) where hands.count < estimator.maximumHands {
                let region = estimator.region(for: detection, imageWidth: image.width, imageHeight: image.height)
                // A palm inside a hand already tracked is that hand.
                let center = (region.centerX, region.centerY)
                if hands.contains(where: { HandPoseTracker.contains($0.region, center, image.width, image.height) }) { continue }
                if let found = estimator.landmarks(in: image, region: region) {
                    hands.append(found)
                    keptSmoothers.append(LandmarkSmoother())
                }
            }
        }
        previous = hands
        smoothers = keptSmoothers
        guard smoothing else { return hands }
        return hands.enumerated().map { index, hand in
            var hand = hand
            hand.landmarks = smoothers[index].smooth(hand.landmarks, time: time, imageWidth: image.width, imageHeight: image.height)
            return hand
        }
    }

    /// Whether `point` (normalised) lies inside `region`.
    static func contains(_ region: RotatedRegion, _ point: (Float, Float), _ imageWidth: Int, _ imageHeight: Int) -> Bool {
        let dx = (point.0 - region.centerX) * Float(imageWidth), dy = (point.1 - region.centerY) * Float(imageHeight)
        let c = cos(-region.rotation), s = sin(-region.rotation)
        let u = c * dx - s * dy, v = s * dx + c * dy
        return abs(u) <= region.width * Float(imageWidth) / 2 && abs(v) <= region.height * Float(imageHeight) / 2
    }

    /// The next frame's region from a hand's landmarks (MediaPipe's `HandLandmarksToRectCalculator`:
    /// turned so the wrist-to-knuckles direction points up, the rotated bounding box of the wrist and
    /// the finger bases, then 2× larger, shifted 0.1 towards the fingers and made square).
    public static func region(following hand: HandLandmarks, imageWidth: Int, imageHeight: Int) -> RotatedRegion {
        let w = Float(imageWidth), h = Float(imageHeight)
        let points = [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18].map { (x: hand.landmarks[$0].x * w, y: hand.landmarks[$0].y * h) }
        let wrist = points[0], index = points[4], middle = points[6], ring = points[8]
        let x1 = ((index.x + ring.x) / 2 + middle.x) / 2, y1 = ((index.y + ring.y) / 2 + middle.y) / 2
        let rotation = RotatedRegion.normalized(.pi / 2 - atan2(-(y1 - wrist.y), x1 - wrist.x))
        let reverse = RotatedRegion.normalized(-rotation)
        let minX = points.map(\.x).min()!, maxX = points.map(\.x).max()!, minY = points.map(\.y).min()!, maxY = points.map(\.y).max()!
        let centerX = (minX + maxX) / 2, centerY = (minY + maxY) / 2
        var projectedMinX = Float.infinity, projectedMaxX = -Float.infinity, projectedMinY = Float.infinity, projectedMaxY = -Float.infinity
        for p in points {
            let x = p.x - centerX, y = p.y - centerY
            let px = x * cos(reverse) - y * sin(reverse), py = x * sin(reverse) + y * cos(reverse)
            projectedMinX = min(projectedMinX, px); projectedMaxX = max(projectedMaxX, px)
            projectedMinY = min(projectedMinY, py); projectedMaxY = max(projectedMaxY, py)
        }
        let pcx = (projectedMinX + projectedMaxX) / 2, pcy = (projectedMinY + projectedMaxY) / 2
        let cx = pcx * cos(rotation) - pcy * sin(rotation) + centerX, cy = pcx * sin(rotation) + pcy * cos(rotation) + centerY
        let region = RotatedRegion(centerX: cx / w, centerY: cy / h, width: (projectedMaxX - projectedMinX) / w,
                                   height: (projectedMaxY - projectedMinY) / h, rotation: rotation)
        return region.transformed(scale: 2.0, shiftY: -0.1, imageWidth: imageWidth, imageHeight: imageHeight)
    }
}

extension BodyLandmarks {
    /// The pose as `JointSet.body18` keypoints (every joint, with its visibility as confidence).
    public var body18Keypoints: [Keypoint?] {
        body18.map { Keypoint(x: $0.x, y: $0.y, confidence: $0.confidence) }
    }
}

extension HandLandmarks {
    /// The hand as `JointSet.hand21` keypoints (confidence: the hand's presence score).
    public var hand21Keypoints: [Keypoint?] {
        landmarks.map { Keypoint(x: $0.x, y: $0.y, confidence: $0.confidence) }
    }

    /// Vision's chirality for an image that is `mirrored` or not.
    public func chirality(mirrored: Bool = false) -> Chirality {
        isLeftHand(mirrored: mirrored).isLeft ? .left : .right
    }
}
