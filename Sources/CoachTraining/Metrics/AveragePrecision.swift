import CoachData
import Foundation

/// A ground-truth box of one class in one image, for detection metrics.
public struct LabeledBox: Equatable, Sendable {
    /// The class index.
    public var classIndex: Int
    /// The box (any pixel space shared with the predictions).
    public var box: BoundingBox

    /// A box of class `classIndex`.
    public init(classIndex: Int, box: BoundingBox) {
        self.classIndex = classIndex
        self.box = box
    }
}

/// A predicted box with its confidence, for detection metrics.
public struct ScoredBox: Equatable, Sendable {
    /// The predicted class index.
    public var classIndex: Int
    /// The confidence, higher is surer.
    public var confidence: Double
    /// The box, in the ground truth's pixel space.
    public var box: BoundingBox

    /// A prediction of class `classIndex` with `confidence`.
    public init(classIndex: Int, confidence: Double, box: BoundingBox) {
        self.classIndex = classIndex
        self.confidence = confidence
        self.box = box
    }
}

/// The ground truth and the predictions of one image.
public struct EvaluatedImage: Equatable, Sendable {
    /// True boxes.
    public var groundTruth: [LabeledBox]
    /// Predicted boxes (after non-maximum suppression).
    public var predictions: [ScoredBox]

    /// The true box of class `classIndex` not yet matched (`used`: true where matched) that
    /// overlaps `box` most, and their IoU; nil when there is none.
    public func closestTruth(to box: BoundingBox, classIndex: Int, used: [Bool]) -> (index: Int, iou: Double)? {
        var best: (index: Int, iou: Double)? = nil
        for (t, truth) in groundTruth.enumerated() where truth.classIndex == classIndex && !used[t] {
            let iou = truth.box.intersectionOverUnion(box)
            if iou > (best?.iou ?? -1) { best = (t, iou) }
        }
        return best
    }

    /// An image's truth and predictions.
    public init(groundTruth: [LabeledBox], predictions: [ScoredBox]) {
        self.groundTruth = groundTruth
        self.predictions = predictions
    }
}

/// Average precision of one class at one IoU threshold, COCO-style.
///
/// Matching (per image): predictions of the class are visited by decreasing confidence —
/// over the whole dataset, ties in the order images and predictions were given (a stable
/// sort). Each takes the not-yet-matched true box of its class with the highest IoU (the
/// first such box on ties); it is a true positive when that IoU is ≥ the threshold,
/// otherwise a false positive (and takes nothing).
///
/// AP is COCO's 101-point interpolated area: precision is made non-increasing from the
/// right (each point gets the best precision at any higher recall), then sampled at
/// recall 0, 0.01, …, 1 (the first point whose recall reaches it; 0 beyond the last
/// recall reached) and averaged. A class with no true boxes has no AP (nil); a class with
/// true boxes but no predictions has AP 0.
public enum AveragePrecision {
    /// The matching outcome of one class at one threshold.
    public struct Matching: Equatable, Sendable {
        /// Confidences of the class's predictions in visiting order.
        public var confidences: [Double]
        /// Whether each was a true positive.
        public var isTruePositive: [Bool]
        /// The number of true boxes of the class.
        public var groundTruthCount: Int
    }

    /// Greedy matching of class `classIndex` at `iouThreshold` over `images`.
    public static func match(_ images: [EvaluatedImage], classIndex: Int, iouThreshold: Double) -> Matching {
        var candidates: [(image: Int, prediction: Int, confidence: Double)] = []
        var truthCount = 0
        for (i, image) in images.enumerated() {
            truthCount += image.groundTruth.filter { $0.classIndex == classIndex }.count
            for (p, prediction) in image.predictions.enumerated() where prediction.classIndex == classIndex {
                candidates.append((i, p, prediction.confidence))
            }
        }
        let order = candidates.indices.sorted { a, b in
            candidates[a].confidence != candidates[b].confidence ? candidates[a].confidence > candidates[b].confidence : a < b
        }
        var matched: [Int: [Bool]] = [:]
        var confidences: [Double] = [], positives: [Bool] = []
        for index in order {
            let candidate = candidates[index]
            let image = images[candidate.image]
            let box = image.predictions[candidate.prediction].box
            var used = matched[candidate.image] ?? [Bool](repeating: false, count: image.groundTruth.count)
            let best = image.closestTruth(to: box, classIndex: classIndex, used: used)
            let hit = best.map { $0.iou >= iouThreshold } ?? false
            if hit, let best { used[best.index] = true }
            matched[candidate.image] = used
            confidences.append(candidate.confidence)
            positives.append(hit)
        }
        return Matching(confidences: confidences, isTruePositive: positives, groundTruthCount: truthCount)
    }

    /// The 101-point interpolated AP of a matching; nil when the class has no true boxes.
    public static func value(of matching: Matching) -> Double? {
        guard matching.groundTruthCount > 0 else { return nil }
        var precision: [Double] = [], recall: [Double] = []
        var truePositives = 0
        for (k, hit) in matching.isTruePositive.enumerated() {
            if hit { truePositives += 1 }
            precision.append(Double(truePositives) / Double(k + 1))
            recall.append(Double(truePositives) / Double(matching.groundTruthCount))
        }
        // Non-increasing envelope from the right.
        if precision.count > 1 {
            for k in stride(from: precision.count - 2, through: 0, by: -1) { precision[k] = max(precision[k], precision[k + 1]) }
        }
        var total = 0.0, position = 0
        for step in 0...100 {
            let level = Double(step) / 100
            while position < recall.count && recall[position] < level - 1e-12 { position += 1 }
            total += position < recall.count ? precision[position] : 0
        }
        return total / 101
    }

    /// AP of class `classIndex` at `iouThreshold` over `images` (nil without true boxes).
    public static func compute(_ images: [EvaluatedImage], classIndex: Int, iouThreshold: Double) -> Double? {
        value(of: match(images, classIndex: classIndex, iouThreshold: iouThreshold))
    }

    /// COCO's IoU thresholds 0.50, 0.55, …, 0.95.
    public static let cocoThresholds: [Double] = (0..<10).map { 0.5 + 0.05 * Double($0) }
}
