import CoachData
import Foundation

/// Object-detection quality: per-class AP at IoU 0.5 (Create ML's "I/O 50") and averaged
/// over IoU 0.50:0.05:0.95 (COCO's AP, Create ML's "varied I/O"), both with COCO's 101-point
/// interpolation (`AveragePrecision`); precision and recall at a confidence threshold;
/// and a detection confusion matrix. Its JSON form is what `coach evaluate --json` prints
/// for detectors: `task`, `classes`, `meanAveragePrecision50`, `meanAveragePrecision`,
/// `perClass` (`label`, `ap50`, `ap`, `precision`, `recall`, …) and `confusionMatrix`.
///
/// Means are over classes that have true boxes; a class without any has `ap50`/`ap` null.
///
/// Confusion matrix ((K+1) × (K+1), rows true class, columns predicted class, the last row
/// and column `background`): predictions with confidence ≥ the threshold and true boxes
/// are paired class-agnostically — all pairs with IoU ≥ `matchingIoU`, taken greedily by
/// decreasing IoU (ties: earlier true box, then earlier prediction), each box used once.
/// A pair counts at [true class][predicted class]; an unpaired true box at
/// [class][background] (missed); an unpaired prediction at [background][class] (a false
/// detection). [background][background] is always 0.
public struct DetectionMetrics: Codable, Equatable, Sendable {
    /// One class's numbers.
    public struct ClassMetrics: Codable, Equatable, Sendable {
        /// The class label.
        public var label: String
        /// AP at IoU 0.5, nil when the class has no true boxes.
        public var ap50: Double?
        /// AP averaged over IoU 0.50:0.95, nil when the class has no true boxes.
        public var ap: Double?
        /// Of the predictions of this class at the threshold, the fraction matching a true box at IoU 0.5 (0 when none).
        public var precision: Double
        /// Of the true boxes of this class, the fraction found at the threshold (0 when none).
        public var recall: Double
        /// True boxes of this class.
        public var groundTruthCount: Int
        /// Predictions of this class at the threshold.
        public var predictionCount: Int

        private enum CodingKeys: String, CodingKey {
            case label, ap50, ap, precision, recall, groundTruthCount, predictionCount
        }

        /// Encodes every key, writing `null` for a missing AP (never dropping the key).
        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(label, forKey: .label)
            if let ap50 { try container.encode(ap50, forKey: .ap50) } else { try container.encodeNil(forKey: .ap50) }
            if let ap { try container.encode(ap, forKey: .ap) } else { try container.encodeNil(forKey: .ap) }
            try container.encode(precision, forKey: .precision)
            try container.encode(recall, forKey: .recall)
            try container.encode(groundTruthCount, forKey: .groundTruthCount)
            try container.encode(predictionCount, forKey: .predictionCount)
        }
    }

    /// The model's task, `object-detector`.
    public var task: String
    /// The class labels, in model order (the confusion matrix adds `background` after them).
    public var classes: [String]
    /// Mean AP at IoU 0.5.
    public var meanAveragePrecision50: Double
    /// Mean AP over IoU 0.50:0.95.
    public var meanAveragePrecision: Double
    /// One entry per class, in `classes` order.
    public var perClass: [ClassMetrics]
    /// counts[true][predicted], K+1 square with background last.
    public var confusionMatrix: [[Int]]
    /// The confidence threshold of precision, recall and the confusion matrix.
    public var confidenceThreshold: Double
    /// The IoU at which a prediction matches a true box for precision, recall and the matrix.
    public var matchingIoU: Double
    /// The number of images evaluated.
    public var imageCount: Int

    /// Metrics of `images` for `classes`; `images`' predictions should include low
    /// confidences (AP uses them all); precision, recall and the confusion matrix use
    /// those ≥ `confidenceThreshold`.
    public init(task: String = "object-detector", classes: [String], images: [EvaluatedImage],
                confidenceThreshold: Double, matchingIoU: Double = 0.5) {
        self.task = task
        self.classes = classes
        self.confidenceThreshold = confidenceThreshold
        self.matchingIoU = matchingIoU
        self.imageCount = images.count
        let confident = images.map { image in
            EvaluatedImage(groundTruth: image.groundTruth,
                           predictions: image.predictions.filter { $0.confidence >= confidenceThreshold })
        }
        var perClass: [ClassMetrics] = []
        for (c, label) in classes.enumerated() {
            let ap50 = AveragePrecision.compute(images, classIndex: c, iouThreshold: 0.5)
            var ap: Double? = nil
            if ap50 != nil {
                let values = AveragePrecision.cocoThresholds.map {
                    AveragePrecision.compute(images, classIndex: c, iouThreshold: $0) ?? 0
                }
                ap = values.reduce(0, +) / Double(values.count)
            }
            let matching = AveragePrecision.match(confident, classIndex: c, iouThreshold: matchingIoU)
            let truePositives = matching.isTruePositive.filter { $0 }.count
            let predicted = matching.isTruePositive.count
            perClass.append(ClassMetrics(
                label: label, ap50: ap50, ap: ap,
                precision: predicted == 0 ? 0 : Double(truePositives) / Double(predicted),
                recall: matching.groundTruthCount == 0 ? 0 : Double(truePositives) / Double(matching.groundTruthCount),
                groundTruthCount: matching.groundTruthCount, predictionCount: predicted))
        }
        self.perClass = perClass
        let present50 = perClass.compactMap(\.ap50), present = perClass.compactMap(\.ap)
        meanAveragePrecision50 = present50.isEmpty ? 0 : present50.reduce(0, +) / Double(present50.count)
        meanAveragePrecision = present.isEmpty ? 0 : present.reduce(0, +) / Double(present.count)
        confusionMatrix = DetectionMetrics.confusionMatrix(confident, classCount: classes.count, iouThreshold: matchingIoU)
    }

    /// The class-agnostic detection confusion matrix described on the type.
    public static func confusionMatrix(_ images: [EvaluatedImage], classCount k: Int, iouThreshold: Double) -> [[Int]] {
        var matrix = [[Int]](repeating: [Int](repeating: 0, count: k + 1), count: k + 1)
        for image in images {
            var pairs: [(iou: Double, truth: Int, prediction: Int)] = []
            for (t, truth) in image.groundTruth.enumerated() {
                for (p, prediction) in image.predictions.enumerated() {
                    let iou = truth.box.intersectionOverUnion(prediction.box)
                    if iou >= iouThreshold { pairs.append((iou, t, p)) }
                }
            }
            pairs.sort { a, b in
                a.iou != b.iou ? a.iou > b.iou : (a.truth != b.truth ? a.truth < b.truth : a.prediction < b.prediction)
            }
            var truthUsed = [Bool](repeating: false, count: image.groundTruth.count)
            var predictionUsed = [Bool](repeating: false, count: image.predictions.count)
            for pair in pairs where !truthUsed[pair.truth] && !predictionUsed[pair.prediction] {
                truthUsed[pair.truth] = true
                predictionUsed[pair.prediction] = true
                matrix[image.groundTruth[pair.truth].classIndex][image.predictions[pair.prediction].classIndex] += 1
            }
            for (t, used) in truthUsed.enumerated() where !used { matrix[image.groundTruth[t].classIndex][k] += 1 }
            for (p, used) in predictionUsed.enumerated() where !used { matrix[k][image.predictions[p].classIndex] += 1 }
        }
        return matrix
    }
}
