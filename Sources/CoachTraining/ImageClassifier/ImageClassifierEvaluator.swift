import CoachData
import CoachModels
import Foundation

/// The result of evaluating an image classifier on labeled folders. Its JSON form is
/// `ClassificationMetrics`' (`task`, `accuracy`, `classes`, `confusionMatrix`, `perClass`, …) with
/// `predictions` (every scored image's, in the folder's order) added.
public struct ImageClassifierEvaluation: ClassifierEvaluationJSON {
    /// Accuracy, per-class precision/recall/F1/support and the confusion matrix.
    public var metrics: ClassificationMetrics
    /// Images that could not be decoded and were skipped (path and reason).
    public var skippedFiles: [String]
    /// Hidden and non-image files that were ignored.
    public var ignoredFiles: [String]
    /// Every scored image's prediction, in the folder's order.
    public var predictions: [ImageEvaluationPrediction] = []

    /// The images predicted wrong, most confident first (confidently wrong ones are often
    /// mislabelled: worth a look first), ties in folder order.
    public var mistakes: [ImageEvaluationPrediction] {
        mostConfidentFirst(predictions.filter { !$0.isCorrect }, confidence: \.confidence)
    }
}

/// `items` from the highest `confidence` to the lowest, ties in their order.
func mostConfidentFirst<Item>(_ items: [Item], confidence: (Item) -> Double) -> [Item] {
    items.enumerated().sorted { a, b in
        let (x, y) = (confidence(a.element), confidence(b.element))
        return x != y ? x > y : a.offset < b.offset
    }.map(\.element)
}

/// One evaluated image: its file, its folder's label, the predicted label and its probability.
/// Its JSON form names them as the other classifiers' predictions do: `source` (the file's path),
/// `label`, `predictedLabel` and `confidence`.
public struct ImageEvaluationPrediction: Equatable, Sendable, Encodable {
    public var file: URL
    public var truth: String
    public var predicted: String
    public var confidence: Double

    public var isCorrect: Bool { truth == predicted }

    private enum CodingKeys: String, CodingKey {
        case source, label, predictedLabel, confidence
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file.path, forKey: .source)
        try container.encode(truth, forKey: .label)
        try container.encode(predicted, forKey: .predictedLabel)
        try container.encode(confidence, forKey: .confidence)
    }
}

/// Evaluates a trained image classifier on a FORMATS §1 folder.
public enum ImageClassifierEvaluator {
    /// Evaluates `model` (running on `backbone`, which must be the one it was trained on) on
    /// the class folders at `data` (a folder of class folders; for a `train/`+`test/` layout
    /// the `test/` split is used). Labels the model does not know are an error; features may
    /// come from and go to `featureCache`. With several ranks (`communicator`), each hashes and
    /// extracts its share of the images, and every rank gets the single process's result.
    public static func evaluate(model: ImageClassifierModel, modelPath: String, backbone: Backbone, data: URL,
                                featureCache: FeatureCache? = nil, communicator: Communicator = .single,
                                observer: TrainingObserver? = nil) throws -> ImageClassifierEvaluation {
        try model.checkBackbone(backbone, modelPath: modelPath)
        var folder: LabeledImageFolder
        if let splits = try ImageFolderDataset.splitFolders(data) {
            folder = try LabeledImageFolder.read(splits.test ?? splits.validation ?? splits.train)
        } else {
            folder = try LabeledImageFolder.read(data)
        }
        let unknown = folder.labels.filter { !model.labels.contains($0) }
        if !unknown.isEmpty {
            throw ImageClassifierTrainingError.unknownLabels(path: folder.root.path, labels: unknown, known: model.labels)
        }
        var skipped: [String] = []
        var sources: [ImageSource] = [], files: [LabeledImageFile] = []
        for (file, hash) in zip(folder.images, try FileHashOutcome.hashes(of: folder.images, communicator: communicator)) {
            guard let sha256 = hash.sha256 else {
                skipped.append("\(file.url.path): \(hash.problem ?? "unreadable")")
                continue
            }
            sources.append(ImageSource(url: file.url, fileSHA256: sha256))
            files.append(file)
        }
        let extraction = ImageFeatureExtraction(extractor: ImageFeatureExtractor(backbone: backbone, encoding: model.encoding, layers: model.featureLayers),
                                                cache: featureCache, augmentations: [], seed: 0)
        let extracted = try extraction.run(sources: sources, views: { _ in [ImageView(augmentationIndex: nil)] },
                                           phase: "extracting features", observer: observer, communicator: communicator)
        skipped += extracted.failures.map(\.message)
        for message in skipped { observer?(.warning("skipped: \(message)")) }
        // Photos the folder holds in other formats are not scored either: say so, the accuracy is of the rest.
        if let warning = LabeledImageFolder.unreadPhotosWarning(folder.ignoredFiles) { observer?(.warning(warning)) }
        guard !extracted.rowImages.isEmpty else { throw ImageClassifierTrainingError.noUsableImages(path: folder.root.path) }
        folder.images = extracted.rowImages.map { files[$0] }
        let logits = model.head.logits(features: extracted.tensor(rows: Array(extracted.rowImages.indices)))
        let labelIndex = Dictionary(uniqueKeysWithValues: model.labels.enumerated().map { ($1, $0) })
        let predicted = logits.argmax(axis: 1)
        let metrics = ClassificationMetrics(task: ModelTask.imageClassifier.rawValue, classes: model.labels,
                                            truth: folder.images.map { labelIndex[$0.label]! },
                                            predictions: predicted)
        let probabilities = logits.softmax(axis: -1), classes = model.labels.count
        let predictions = folder.images.enumerated().map { row, file in
            ImageEvaluationPrediction(file: file.url, truth: file.label, predicted: model.labels[predicted[row]],
                                      confidence: Double(probabilities.scalars[row * classes + predicted[row]]))
        }
        return ImageClassifierEvaluation(metrics: metrics, skippedFiles: skipped, ignoredFiles: folder.ignoredFiles.map(\.path),
                                         predictions: predictions)
    }
}
