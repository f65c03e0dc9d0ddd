import CoachData
import CoachModels
import CoachRandom
import Foundation

/// What a training run produced.
public struct ImageClassifierTrainingResult {
    /// The trained model (best validation weights kept); `model.modelFile()` is what to write.
    public var model: ImageClassifierModel
    /// What was found in the data.
    public var report: ImageDatasetReport
    /// One summary per iteration.
    public var history: [IterationSummary]
    /// The iteration whose weights were kept (the best validation loss), when validating.
    public var bestIteration: Int?
    /// Whether early stopping ended training before the iteration limit.
    public var stoppedEarly: Bool
    /// Metrics on the validation images, when there were any.
    public var validationMetrics: ClassificationMetrics?
    /// Metrics on the `test/` split, when the data has one.
    public var testMetrics: ClassificationMetrics?
    /// Image views whose features the backbone computed in this run.
    public var computedViews: Int
    /// Image views whose features came from the on-disk cache.
    public var cachedViews: Int
}

/// Trains an image classifier by transfer learning (Create ML's recipe): the frozen backbone's
/// pooled features of every (image, augmented view) are computed once — or read from the
/// on-disk `FeatureCache` — and a head is fitted on them: L2-regularised multinomial logistic
/// regression by L-BFGS (default) or a small MLP, with early stopping on validation loss.
///
/// Every random choice derives from `configuration.seed`, and the logistic head starts from
/// zero, so the same data and configuration give the same model bytes. An interrupted run
/// resumes by running again: the views already extracted (the bulk of the time) come from
/// the cache, and the head's fit is deterministic and takes seconds.
public struct ImageClassifierTrainer {
    /// The training configuration.
    public let configuration: ImageClassifierTrainingConfiguration
    /// The backbone features are computed with.
    public let backbone: Backbone
    /// Where features are cached between runs (nil: in memory only).
    public var featureCache: FeatureCache?
    /// Receives progress, notes, warnings and per-iteration summaries.
    public var observer: TrainingObserver?
    /// The job's processes: each hashes and extracts the features of its share of the images and
    /// fits its share of the cross-validation folds; every rank then fits the same head on all
    /// of them (deterministic, and quicker than sending it), so any number of ranks gives a single
    /// process's model bytes.
    public var communicator: Communicator = .single

    /// A trainer; throws `ImageClassifierTrainingError.invalidConfiguration` listing every bad value.
    public init(configuration: ImageClassifierTrainingConfiguration, backbone: Backbone,
                featureCache: FeatureCache? = nil, observer: TrainingObserver? = nil) throws {
        let problems = configuration.problems
        guard problems.isEmpty else { throw ImageClassifierTrainingError.invalidConfiguration(problems) }
        self.configuration = configuration
        self.backbone = backbone
        self.featureCache = featureCache
        self.observer = observer
    }

    /// Reads FORMATS §1 folders at `data` (and `validation`, if given) and trains.
    public func train(data: URL, validation: URL? = nil, name: String? = nil) throws -> ImageClassifierTrainingResult {
        try train(dataset: ImageFolderDataset.read(data, validationRoot: validation), name: name)
    }

    /// Trains on an already read dataset.
    public func train(dataset: ImageFolderDataset, name: String? = nil) throws -> ImageClassifierTrainingResult {
        let config = configuration
        let root = dataset.training.root.path
        let labels = dataset.training.labels
        guard labels.count >= 2 else { throw ImageClassifierTrainingError.tooFewClasses(path: root, labels: labels) }
        for other in [dataset.validation, dataset.test].compactMap({ $0 }) {
            let unknown = other.labels.filter { !labels.contains($0) }
            if !unknown.isEmpty { throw ImageClassifierTrainingError.unknownLabels(path: other.root.path, labels: unknown, known: labels) }
        }

        // Training / validation files: the given split, or a seeded stratified hold-out.
        var trainingFiles = dataset.training.images
        var validationFiles = dataset.validation?.images ?? []
        let heldOut = dataset.validation == nil
        if heldOut {
            var generator = SeededGenerator(seed: config.seed)
            let split = PoseDatasetSplit.stratified(labels: trainingFiles.map(\.label), testFraction: config.validationFraction,
                                                    generator: &generator)
            validationFiles = split.testIndices.map { trainingFiles[$0] }
            trainingFiles = split.trainIndices.map { trainingFiles[$0] }
        }
        let testFiles = dataset.test?.images ?? []
        let ignored = ([dataset.training, dataset.validation, dataset.test].compactMap { $0 }).flatMap(\.ignoredFiles).map(\.path)

        // Content hashes: cache keys and duplicate detection.
        var skipped: [String] = [], warnings: [String] = []
        let everyFile = trainingFiles + validationFiles + testFiles
        let hashes = try FileHashOutcome.hashes(of: everyFile, communicator: communicator)
        func hashed(_ range: Range<Int>) -> [(file: LabeledImageFile, sha: String)] {
            range.compactMap { index in
                guard let sha = hashes[index].sha256 else {
                    skipped.append("\(everyFile[index].url.path): \(hashes[index].problem ?? "unreadable")")
                    return nil
                }
                return (everyFile[index], sha)
            }
        }
        let training = hashed(0..<trainingFiles.count)
        let validation = hashed(trainingFiles.count..<(trainingFiles.count + validationFiles.count))
        let test = hashed((trainingFiles.count + validationFiles.count)..<everyFile.count)
        emit(.note("training data: \(root) (\(trainingFiles.count) training, \(validationFiles.count) validation"
                   + (testFiles.isEmpty ? "" : ", \(testFiles.count) test") + " images)"))
        if !ignored.isEmpty {
            emit(.note("ignored \(ignored.count) hidden or non-image file\(ignored.count == 1 ? "" : "s"): "
                       + ignored.prefix(10).joined(separator: ", ") + (ignored.count > 10 ? ", …" : "")))
        }
        if let warning = LabeledImageFolder.unreadPhotosWarning(ignored.map { URL(fileURLWithPath: $0) }) {
            warnings.append(warning)
            emit(.warning(warning))
        }
        let duplicates = Self.duplicates(training: training, others: validation + test)
        if !duplicates.isEmpty {
            let warning = "\(duplicates.count) image\(duplicates.count == 1 ? " is" : "s are") byte-for-byte identical between training and validation/test data, which inflates the measured accuracy: "
                + duplicates.prefix(10).joined(separator: "; ") + (duplicates.count > 10 ? "; …" : "")
            warnings.append(warning)
            emit(.warning(warning))
        }

        // Features, once per (image, view).
        let extraction = ImageFeatureExtraction(
            extractor: ImageFeatureExtractor(backbone: backbone, layers: config.featureLayers, batchSize: config.extractionBatchSize),
            cache: featureCache, augmentations: try config.augmentationSteps(), seed: config.seed)
        let all = training + validation + test
        let sources = all.map { ImageSource(url: $0.file.url, fileSHA256: $0.sha) }
        let views = [ImageView(augmentationIndex: nil)] + extraction.augmentations.indices.map { ImageView(augmentationIndex: $0) }
        if let cache = featureCache { emit(.note("feature cache: \(cache.directory.path)")) }
        var extracted = try extraction.run(sources: sources, views: { $0 < training.count ? views : [views[0]] },
                                           phase: "extracting features", observer: observer, communicator: communicator)
        if extracted.cacheHits > 0 { emit(.note("\(extracted.cacheHits) of \(extracted.cacheHits + extracted.computed) image views read from the feature cache")) }
        if let failure = extracted.cacheWriteFailure { emit(.warning("could not write the feature cache: \(failure)")) }
        for failure in extracted.failures {
            skipped.append(failure.message)
        }
        for message in skipped { emit(.warning("skipped: \(message)")) }

        // Rows of each part, by image ranges.
        let failedImages = Set(extracted.failures.map(\.imageIndex))
        func rows(_ range: Range<Int>, originalOnly: Bool) -> [Int] {
            extracted.rowImages.indices.filter { range.contains(extracted.rowImages[$0]) && (!originalOnly || extracted.rowViews[$0].augmentationIndex == nil) }
        }
        let trainingRange = 0..<training.count
        let validationRange = training.count..<(training.count + validation.count)
        let testRange = (training.count + validation.count)..<all.count
        func usable(_ part: [(file: LabeledImageFile, sha: String)], offset: Int) -> [LabeledImageFile] {
            part.enumerated().filter { !failedImages.contains($0.offset + offset) }.map(\.element.file)
        }
        let trainingCounts = ImageDatasetReport.counts(usable(training, offset: 0))
        let empty = labels.filter { (trainingCounts[$0] ?? 0) == 0 }
        if !empty.isEmpty { throw ImageClassifierTrainingError.classesWithoutImages(path: root, labels: empty) }
        let countWarnings = ImageDatasetReport.countWarnings(trainingCounts, labels: labels)
        warnings += countWarnings
        let report = ImageDatasetReport(labels: labels, trainingCounts: trainingCounts,
                                        validationCounts: ImageDatasetReport.counts(usable(validation, offset: training.count)),
                                        testCounts: ImageDatasetReport.counts(usable(test, offset: training.count + validation.count)),
                                        ignoredFiles: ignored, skippedFiles: skipped, duplicates: duplicates,
                                        validationIsHeldOut: heldOut, warnings: warnings)
        for line in report.summaryLines { emit(.note(line)) }
        for warning in countWarnings { emit(.warning(warning)) }

        // Fit the head.
        let labelIndex = Dictionary(uniqueKeysWithValues: labels.enumerated().map { ($1, $0) })
        func labelsOf(_ rows: [Int]) -> [Int] { rows.map { labelIndex[all[extracted.rowImages[$0]].file.label]! } }
        let trainingRows = rows(trainingRange, originalOnly: false)
        let validationRows = rows(validationRange, originalOnly: true)
        let testRows = rows(testRange, originalOnly: true)
        // Training rows come first in extraction order: they move into the training matrix, so
        // the features are held once (the other rows stay in `extracted`).
        let movesTraining = trainingRows == Array(0..<trainingRows.count)
        let rawTraining = movesTraining ? extracted.takeLeadingRows(trainingRows.count) : extracted.tensor(rows: trainingRows)
        let inTraining = { (rows: [Int]) in movesTraining && rows.allSatisfy({ $0 < trainingRows.count }) }
        func features(_ rows: [Int]) -> Tensor {
            inTraining(rows) ? rawTraining.rows(rows) : extracted.tensor(rows: rows)
        }
        // The logistic head works on the raw features (measured on the cornhole crops: 97.7 % test
        // accuracy standardised against 98.9–100 % raw over the same penalties, as scikit-learn's
        // LogisticRegression on raw features gets); the MLP on standardised ones.
        let standardization = config.classifier == .logistic ? FeatureStandardization(identityOfWidth: rawTraining.shape[1])
                                                             : FeatureStandardization(fitting: rawTraining)
        let data = HeadTrainingData(
            training: standardization.apply(rawTraining), trainingLabels: labelsOf(trainingRows),
            validation: validationRows.isEmpty ? nil : standardization.apply(features(validationRows)),
            validationLabels: labelsOf(validationRows), classCount: labels.count,
            trainingGroups: trainingRows.map { extracted.rowImages[$0] },
            trainingIsOriginal: trainingRows.map { extracted.rowViews[$0].augmentationIndex == nil })
        if data.validation == nil && config.classifier == .mlp {
            emit(.warning("no validation images: training runs all \(config.effectiveMaximumIterations) iterations without early stopping"))
        }
        emit(.note("training a \(config.classifier == .logistic ? "logistic regression" : "multilayer perceptron") head on \(trainingRows.count) feature vectors (\(views.count) view\(views.count == 1 ? "" : "s") per training image)"))
        var fit: HeadFit, penalty: Double? = nil
        if config.classifier == .logistic {
            (fit, penalty) = try fitLogisticHead(data, configuration: config, communicator: communicator, observer: observer)
        } else {
            fit = fitMLPHead(data, configuration: config, observer: observer)
        }
        func head(_ layers: [ImageClassifierHead.Layer]) -> ImageClassifierHead {
            var layers = layers
            layers[0] = standardization.folded(weight: layers[0].weight, bias: layers[0].bias)
            return ImageClassifierHead(layers: layers)
        }
        let measuredHead = head(fit.layers)

        // Metrics of a head, on raw features (as the runtime computes them).
        func metrics(_ rows: [Int], of head: ImageClassifierHead) -> (ClassificationMetrics, Double)? {
            guard !rows.isEmpty else { return nil }
            // Training rows are scored in place (a copy of them would double the features held).
            let logits = inTraining(rows) ? head.logits(features: rawTraining).rows(rows) : head.logits(features: features(rows))
            let truth = labelsOf(rows)
            return (ClassificationMetrics(task: ModelTask.imageClassifier.rawValue, classes: labels, truth: truth,
                                          predictions: logits.argmax(axis: 1)),
                    lossAndAccuracy(logits: logits, labels: truth).loss)
        }
        let validationMetrics = metrics(validationRows, of: measuredHead)
        // The logistic head's optimum with the held-out validation images added back: validation
        // measured the head above; the model keeps every training image.
        var finalHead = measuredHead
        if let penalty, heldOut, let validation = data.validation {
            // The two matrices as blocks of one fit: a concatenated copy would hold every feature twice.
            let refit = SoftmaxRegression(l2Penalty: penalty).fit(
                blocks: [data.training, validation], labels: data.trainingLabels + data.validationLabels, classCount: labels.count,
                maximumIterations: config.effectiveMaximumIterations)
            finalHead = head([ImageClassifierHead.Layer(weight: refit.parameters.weight, bias: refit.parameters.bias)])
            emit(.note("refitted on the training and validation images together (L2 penalty \(penalty))"))
        }

        // Training and test metrics are the written model's.
        var metricValues: [String: Double] = [:]
        let trainingOriginal = rows(trainingRange, originalOnly: true)
        if let (m, loss) = metrics(trainingOriginal, of: finalHead) { metricValues["training.accuracy"] = m.accuracy; metricValues["training.loss"] = loss }
        if let (m, loss) = validationMetrics { metricValues["validation.accuracy"] = m.accuracy; metricValues["validation.loss"] = loss }
        let testMetrics = metrics(testRows, of: finalHead)
        if let (m, loss) = testMetrics { metricValues["test.accuracy"] = m.accuracy; metricValues["test.loss"] = loss }

        var trainingMetadata = config.metadata
        if let penalty { trainingMetadata["l2Penalty"] = .number(penalty) }
        if finalHead != measuredHead { trainingMetadata["refittedWithValidation"] = .bool(true) }
        trainingMetadata["iterations"] = .number(Double(fit.history.count))
        if let best = fit.bestIteration { trainingMetadata["bestIteration"] = .number(Double(best)) }
        trainingMetadata["stoppedEarly"] = .bool(fit.stoppedEarly)
        trainingMetadata["trainingImages"] = .number(Double(trainingCounts.values.reduce(0, +)))
        trainingMetadata["trainingFeatureVectors"] = .number(Double(trainingRows.count))
        trainingMetadata["validationImages"] = .number(Double(validationRows.count))
        trainingMetadata["validation"] = .string(heldOut ? "held out from the training folder" : "given")
        if !testRows.isEmpty { trainingMetadata["testImages"] = .number(Double(testRows.count)) }
        let model = ImageClassifierModel(labels: labels, head: finalHead, encoding: extraction.extractor.encoding,
                                         featureLayers: extraction.extractor.layers, backbone: ImageClassifierModel.reference(to: backbone), name: name,
                                         training: trainingMetadata, metrics: metricValues)
        return ImageClassifierTrainingResult(model: model, report: report, history: fit.history, bestIteration: fit.bestIteration,
                                             stoppedEarly: fit.stoppedEarly, validationMetrics: validationMetrics?.0,
                                             testMetrics: testMetrics?.0, computedViews: extracted.computed,
                                             cachedViews: extracted.cacheHits)
    }

    private func emit(_ event: TrainingEvent) { observer?(event) }

    /// "a ↔ b" for every training file whose bytes equal a validation or test file's.
    static func duplicates(training: [(file: LabeledImageFile, sha: String)],
                           others: [(file: LabeledImageFile, sha: String)]) -> [String] {
        var byHash: [String: LabeledImageFile] = [:]
        for item in training where byHash[item.sha] == nil { byHash[item.sha] = item.file }
        return others.compactMap { item in
            byHash[item.sha].map { "\($0.url.path) = \(item.file.url.path)" }
        }
    }
}
