import CoachData
import CoachModels
import Foundation

/// Runs a detector over a dataset and measures it (`DetectionMetrics`).
public enum ObjectDetectorEvaluation {
    /// The confidence down to which detections are kept for AP (COCO keeps everything; a
    /// tiny floor only drops noise that cannot change AP by a visible amount).
    public static let averagePrecisionFloor: Double = 0.001

    /// Detections per image, boxes in the images' full-size pixels, most confident first.
    public static func detections(model: ObjectDetectorModel, views: [DetectorTrainingView],
                                  confidenceThreshold: Double = averagePrecisionFloor,
                                  iouThreshold: Double = ObjectDetectorModel.defaultIoUThreshold) -> [[Detection]] {
        var result: [[Detection]] = []
        var start = 0
        while start < views.count {
            let chunk = Array(views[start..<min(views.count, start + 16)])
            let raws = model.rawOutputs(chunk.map(\.maps))
            for (i, view) in chunk.enumerated() {
                result.append(model.detections(in: raws, index: i, transform: view.transform,
                                               confidenceThreshold: confidenceThreshold, iouThreshold: iouThreshold)
                    .map { detection in
                        var d = detection
                        d.box = BoundingBox(minX: d.box.minX * view.fullScaleX, minY: d.box.minY * view.fullScaleY,
                                            maxX: d.box.maxX * view.fullScaleX, maxY: d.box.maxY * view.fullScaleY)
                        return d
                    })
            }
            start += chunk.count
        }
        return result
    }

    /// Ground truth and predictions of `images` (unaugmented `views`, one per image, same order).
    public static func evaluatedImages(model: ObjectDetectorModel, images: [AnnotatedImage],
                                       views: [DetectorTrainingView]) -> [EvaluatedImage] {
        let index = Dictionary(uniqueKeysWithValues: model.classLabels.enumerated().map { ($1, $0) })
        let predictions = detections(model: model, views: views)
        return zip(images, predictions).map { image, detections in
            EvaluatedImage(
                groundTruth: image.objects.compactMap { object in
                    index[object.label].map { LabeledBox(classIndex: $0, box: object.box) }
                },
                predictions: detections.map { ScoredBox(classIndex: $0.classIndex, confidence: Double($0.confidence), box: $0.box) })
        }
    }

    /// Evaluates `model` on `dataset`: backbone maps of every image, detections, metrics.
    /// Boxes of labels the model does not know are reported in a warning and left out. With
    /// several ranks (`communicator`), each computes the maps of its share of the images and every
    /// rank gets the single process's metrics.
    public static func evaluate(model: ObjectDetectorModel, backbone: EfficientNetLite0, dataset: DetectionDataset,
                                confidenceThreshold: Double = ObjectDetectorModel.defaultConfidenceThreshold,
                                communicator: Communicator = .single,
                                observer: TrainingObserver? = nil) throws -> DetectionMetrics {
        try evaluateImages(model: model, backbone: backbone, dataset: dataset, confidenceThreshold: confidenceThreshold,
                           communicator: communicator, observer: observer).metrics
    }

    /// `evaluate`'s metrics with each image's ground truth and predictions (in `dataset.images`
    /// order), for looking at the mistakes (`DetectionOutcome`).
    public static func evaluateImages(model: ObjectDetectorModel, backbone: EfficientNetLite0, dataset: DetectionDataset,
                                      confidenceThreshold: Double = ObjectDetectorModel.defaultConfidenceThreshold,
                                      communicator: Communicator = .single, observer: TrainingObserver? = nil) throws
        -> (metrics: DetectionMetrics, images: [EvaluatedImage]) {
        // Scores over no images would read as a (zero) result: an empty test set is an error.
        guard !dataset.images.isEmpty else { throw ObjectDetectorTrainingError.noImages(path: dataset.source.path) }
        let unknown = Set(dataset.labels).subtracting(model.classLabels)
        if !unknown.isEmpty {
            observer?(.warning("the model does not know the label\(unknown.count == 1 ? "" : "s") \(unknown.sorted().joined(separator: ", ")); those boxes are left out"))
        }
        let extractor = DetectorFeatureExtractor(backbone: backbone, configuration: model.configuration)
        let builder = DetectorViewBuilder(extractor: extractor, encoding: extractor.encoding,
                                          classIndex: Dictionary(uniqueKeysWithValues: model.classLabels.enumerated().map { ($1, $0) }),
                                          pipeline: AugmentationPipeline(steps: []), seed: 0)
        let views = try builder.build(dataset.images, viewsPerImage: 1, phase: "detecting", observer: observer,
                                      communicator: communicator)
        let images = evaluatedImages(model: model, images: dataset.images, views: views)
        return (DetectionMetrics(classes: model.classLabels, images: images, confidenceThreshold: confidenceThreshold), images)
    }
}
