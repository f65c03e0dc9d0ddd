import CoachData
import Foundation

/// A detector's evaluation as `coach evaluate --json` prints it: `DetectionMetrics`' keys (`task`,
/// `classes`, `meanAveragePrecision50`, `perClass`, `confusionMatrix`, …) with `images` added, each
/// evaluated image's outcome at the metrics' confidence threshold and matching IoU
/// (`DetectionOutcome`): its right and wrong predictions and the true boxes it missed, in pixels of
/// the image as annotated, origin top-left. Summed over the images, the right predictions of a
/// class are its recall times its true boxes, and with the wrong ones its prediction count.
public struct DetectionEvaluationReport: Encodable {
    /// One box of an image's outcome.
    public struct Box: Encodable, Equatable, Sendable {
        public var label: String
        /// The prediction's confidence; nil (left out of the JSON) for a missed true box.
        public var confidence: Double?
        /// Left and top edges, width and height, in pixels.
        public var x: Double, y: Double, width: Double, height: Double

        init(label: String, confidence: Double?, box: BoundingBox) {
            self.label = label
            self.confidence = confidence
            x = box.minX
            y = box.minY
            width = box.maxX - box.minX
            height = box.maxY - box.minY
        }
    }

    /// One evaluated image's outcome.
    public struct ImageOutcome: Encodable, Equatable, Sendable {
        /// The image file's path.
        public var source: String
        /// Confident predictions that matched a true box of their class, most confident first.
        public var correct: [Box]
        /// Confident predictions that matched none, most confident first.
        public var wrong: [Box]
        /// True boxes no confident prediction of their class matched, in the annotation's order.
        public var missed: [Box]
    }

    public var metrics: DetectionMetrics
    /// Every evaluated image's outcome, in the evaluated order.
    public var images: [ImageOutcome]

    /// The report of `evaluated` images (in `dataset.images` order, as
    /// `ObjectDetectorEvaluation.evaluateImages` returns them) under `metrics`' confidence threshold
    /// and matching IoU; `labels` names the class indices.
    public init(metrics: DetectionMetrics, evaluated: [EvaluatedImage], images: [AnnotatedImage], labels: [String]) {
        self.metrics = metrics
        func name(_ index: Int) -> String { labels.indices.contains(index) ? labels[index] : "class \(index)" }
        self.images = zip(images, evaluated).enumerated().map { index, pair in
            let (annotated, image) = pair
            let outcome = DetectionOutcome(image, imageIndex: index, confidenceThreshold: metrics.confidenceThreshold,
                                           matchingIoU: metrics.matchingIoU)
            func predicted(_ indices: [Int]) -> [Box] {
                indices.map { image.predictions[$0] }
                    .enumerated().sorted { ($0.element.confidence, -$0.offset) > ($1.element.confidence, -$1.offset) }
                    .map { Box(label: name($0.element.classIndex), confidence: $0.element.confidence, box: $0.element.box) }
            }
            return ImageOutcome(source: annotated.url.path, correct: predicted(outcome.correct), wrong: predicted(outcome.wrong),
                                missed: outcome.missed.map { image.groundTruth[$0] }.map {
                                    Box(label: name($0.classIndex), confidence: nil, box: $0.box)
                                })
        }
    }

    private enum CodingKeys: String, CodingKey { case images }

    /// Encodes the metrics' keys and every image's outcome.
    public func encode(to encoder: Encoder) throws {
        try metrics.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(images, forKey: .images)
    }
}
