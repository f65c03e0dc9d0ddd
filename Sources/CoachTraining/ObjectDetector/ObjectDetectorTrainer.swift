import CoachData
import CoachModels
import Foundation

/// What a finished object-detector training run produced.
public struct TrainedObjectDetector {
    /// The trained model.
    public var model: ObjectDetectorModel
    /// Its model file (metadata with training configuration and metrics), ready to write.
    public var modelFile: ModelFile
    /// Metrics on the validation set, when one was given.
    public var validationMetrics: DetectionMetrics?
    /// The mean training loss over the last reporting interval.
    public var finalTrainingLoss: Double
    /// Iterations run in total (including those before a resume).
    public var iterations: Int
    /// Seconds spent extracting backbone maps and training (this process only).
    public var featureSeconds: Double
    /// Seconds spent in training iterations (this process only).
    public var trainingSeconds: Double
}

/// Trains an object detector by transfer learning: the frozen EfficientNet-Lite0 maps of
/// every training view are computed once and cached (bfloat16, in memory), then the head
/// alone is trained with AdamW on batches of cached views.
///
/// Determinism: view `v` of image `i` is augmented with a generator derived from
/// (seed, i, v); the views of epoch `e` are visited in an order derived from (seed, e);
/// weights start from (seed). Nothing depends on timing or thread count, so the same seed
/// and data give the same model bytes — also when a run is resumed from its checkpoint.
public enum ObjectDetectorTrainer {
    /// The cached views of a run: backbone maps of every training view (and of each
    /// validation image), which depend only on the data, the input size, the augmentations,
    /// the views per image and the seed — so several head configurations can train on one set.
    public struct CachedViews {
        /// Class labels (sorted training labels) the targets index into.
        public var labels: [String]
        /// Input side they were made for.
        public var inputSize: Int
        /// Augmentations they were made with.
        public var augmentations: [String]
        /// Views per training image.
        public var viewsPerImage: Int
        /// The seed of the augmentations.
        public var seed: UInt64
        /// Training views, `viewsPerImage` per image.
        public var training: [DetectorTrainingView]
        /// One unaugmented view per validation image, when there is a validation set.
        public var validation: [DetectorTrainingView]?
        /// Seconds spent building them.
        public var seconds: Double

        func fits(_ c: ObjectDetectorTrainingConfiguration, labels: [String]) -> Bool {
            self.labels == labels && inputSize == c.inputSize && augmentations == c.augmentations
                && viewsPerImage == c.viewsPerImage && seed == c.seed
        }
    }

    /// Builds the cached views for `configuration` (see `CachedViews`). With several ranks, each
    /// builds the views of its share of the images (contiguous, in file order) and every rank gets
    /// all of them, in a single process's order and with its bits (each view's augmentation derives
    /// from the seed, the image's index and the view alone).
    public static func cacheViews(training: DetectionDataset, validation: DetectionDataset?, backbone: Backbone,
                                  configuration: ObjectDetectorTrainingConfiguration,
                                  communicator: Communicator = .single,
                                  observer: TrainingObserver? = nil) throws -> CachedViews {
        if !configuration.problems.isEmpty { throw ObjectDetectorTrainingError.invalidConfiguration(configuration.problems) }
        AllocatorTuning.retainFreedMemory()
        let labels = training.labels
        let pipeline = try AugmentationPipeline(parsing: configuration.augmentations.joined(separator: ","))
        // The maps do not depend on the head: any valid configuration of this input size extracts them.
        let detector = DetectorConfiguration(inputWidth: configuration.inputSize, inputHeight: configuration.inputSize,
                                             classCount: max(1, labels.count))
        let extractor = DetectorFeatureExtractor(backbone: backbone.network, configuration: detector)
        let builder = DetectorViewBuilder(extractor: extractor, encoding: extractor.encoding,
                                          classIndex: Dictionary(uniqueKeysWithValues: labels.enumerated().map { ($1, $0) }),
                                          pipeline: pipeline, seed: configuration.seed)
        let start = ProgressMeter.now()
        let viewsPerImage = configuration.cachedViewsPerImage(imageCount: training.images.count)
        if viewsPerImage < configuration.viewsPerImage {
            observer?(.note("caching \(viewsPerImage) view\(viewsPerImage == 1 ? "" : "s") per image instead of \(configuration.viewsPerImage) "
                            + String(format: "to keep the cache of %d images within %.1f GB", training.images.count,
                                     Double(ObjectDetectorTrainingConfiguration.viewCacheBudgetBytes) / 1e9)))
        }
        let views = try builder.build(training.images, viewsPerImage: viewsPerImage, phase: "caching backbone maps", observer: observer,
                                      communicator: communicator)
        let validationViews = try validation.map {
            try builder.build($0.images, viewsPerImage: 1, phase: "caching validation maps", observer: observer,
                              communicator: communicator)
        }
        let seconds = ProgressMeter.now() - start
        let megabytes = Double(views.reduce(0) { $0 + $1.maps.byteCount }) / 1_048_576
        observer?(.note(String(format: "cached %d views (%.0f MB) in %.1f s", views.count, megabytes, seconds)))
        return CachedViews(labels: labels, inputSize: configuration.inputSize, augmentations: configuration.augmentations,
                           viewsPerImage: configuration.viewsPerImage, seed: configuration.seed, training: views,
                           validation: validationViews, seconds: seconds)
    }

    /// Trains on `training`, evaluating on `validation` when given.
    ///
    /// - Parameters:
    ///   - cachedViews: views from `cacheViews` for this data and configuration, or nil to build them.
    ///   - checkpoint: where to save progress (after every report), or nil for none.
    ///   - resume: continue from `checkpoint` when it exists (its configuration and data must match).
    ///   - interruptAfter: stop with `ObjectDetectorTrainingError.interrupted` once this many
    ///     iterations are done and checkpointed (a time-boxed run; resume continues it exactly).
    public static func train(training: DetectionDataset, validation: DetectionDataset?, backbone: Backbone,
                             configuration: ObjectDetectorTrainingConfiguration, cachedViews: CachedViews? = nil,
                             checkpoint: URL? = nil, resume: Bool = false, interruptAfter: Int? = nil,
                             observer: TrainingObserver? = nil) throws -> TrainedObjectDetector {
        if !configuration.problems.isEmpty { throw ObjectDetectorTrainingError.invalidConfiguration(configuration.problems) }
        let labels = training.labels
        guard !labels.isEmpty else { throw ObjectDetectorTrainingError.noObjects(path: training.source.path) }

        // Anchors from the training boxes as the letterboxed input sees them, spread over the levels.
        var anchors: [AnchorSize] = []
        let strides = configuration.strides.sorted()
        var levels = [DetectionLevel(stride: strides[0])]  // anchor-free: the finest stride
        if configuration.boxCoding == .anchors {
            let side = Double(configuration.inputSize)
            let sizes = training.images.flatMap { image -> [AnchorSize] in
                let scale = min(side / Double(image.width), side / Double(image.height))
                return image.objects.map { AnchorSize(width: $0.box.width * scale, height: $0.box.height * scale) }
            }
            var generator = SeededGenerator(seed: DetectorSeeds.mix(configuration.seed, 3))
            anchors = AnchorClustering.anchors(sizes: sizes, count: configuration.anchorCount, using: &generator)
            observer?(.note("anchors (k-means, input pixels): " + anchors.map { String(format: "%.0f×%.0f", $0.width, $0.height) }.joined(separator: ", ")))
            levels = anchorLevels(anchors, strides: strides)
        }
        let detector = DetectorConfiguration(inputWidth: configuration.inputSize, inputHeight: configuration.inputSize,
                                             levels: levels, headWidth: configuration.headWidth,
                                             headBlocks: configuration.headBlocks, classCount: labels.count)
        var initGenerator = SeededGenerator(seed: DetectorSeeds.mix(configuration.seed, 4))
        let model = try ObjectDetectorModel(configuration: detector, classLabels: labels, generator: &initGenerator)
        let gridText = detector.grids.map { "\($0.gridWidth)×\($0.gridHeight) (stride \($0.stride)\($0.usesAnchors ? ", \($0.anchors.count) anchor\($0.anchors.count == 1 ? "" : "s")" : ""))" }
        observer?(.note("grid\(detector.grids.count > 1 ? "s" : "") " + gridText.joined(separator: " and ")
                        + ", \(configuration.boxCoding.rawValue) boxes, head \(model.head.parameterCount) parameters"))

        let cached: CachedViews
        var featureSeconds = 0.0
        if let cachedViews, cachedViews.fits(configuration, labels: labels), (cachedViews.validation != nil) == (validation != nil) {
            cached = cachedViews
        } else {
            cached = try cacheViews(training: training, validation: validation, backbone: backbone,
                                    configuration: configuration, observer: observer)
            featureSeconds = cached.seconds
        }
        let views = cached.training, validationViews = cached.validation

        let iterations = configuration.maximumIterations ?? configuration.automaticIterations(viewCount: views.count)
        let optimizer = Adam.adamW(learningRate: Float(configuration.learningRate), weightDecay: Float(configuration.weightDecay))
        let warmUp = max(1, iterations / 20)
        let base = Float(configuration.learningRate)
        let schedule = WarmUpSchedule(CosineSchedule(base: base, totalSteps: max(1, iterations - warmUp), minimum: base * 0.02),
                                      warmUpSteps: warmUp)
        let fingerprint = ObjectDetectorCheckpoint.fingerprint(training: training, labels: labels)
        var startIteration = 0
        var history: [DetectorIterationRecord] = []
        if resume {
            // As every trainer does: --resume without a checkpoint is refused, not a silent fresh start.
            guard let checkpoint else { throw ObjectDetectorTrainingError.checkpointMissing(path: "(none given)") }
            guard FileManager.default.fileExists(atPath: checkpoint.path) else {
                throw ObjectDetectorTrainingError.checkpointMissing(path: checkpoint.path)
            }
        }
        if resume, let checkpoint {
            let saved = try ObjectDetectorCheckpoint.read(from: checkpoint)
            try saved.check(configuration: configuration, fingerprint: fingerprint, iterations: iterations, path: checkpoint.path)
            try model.head.load(saved.modelState)
            try optimizer.restore(saved.optimizerState)
            startIteration = saved.record.completedIterations
            history = saved.record.history
            observer?(.note("resuming from \(checkpoint.path) at iteration \(startIteration) of \(iterations)"))
        }

        let batch = min(configuration.batchSize, views.count)
        let reportEvery = max(1, iterations / 20)
        var meter = ProgressMeter(phase: "training", total: (iterations - startIteration) * batch)
        var intervalLoss = 0.0, intervalCount = 0
        var lastLoss = history.last?.trainingLoss ?? .nan
        let trainingStart = ProgressMeter.now()
        for iteration in startIteration..<iterations {
            let indices = batchIndices(iteration: iteration, batch: batch, viewCount: views.count, seed: configuration.seed)
            let tape = Tape(mode: .training, generator: SeededGenerator(seed: DetectorSeeds.mix(configuration.seed, 5, UInt64(iteration))))
            let raws = model.head(DetectorFeatureBatch(indices.map { views[$0].maps }, configuration: detector), tape: tape)
            let (loss, components) = DetectionLoss.compute(raws, targets: indices.map { views[$0].target }, codings: model.codings)
            var gradients = tape.gradients(of: loss)
            GradientClipping.clipByGlobalNorm(&gradients, parameters: model.head.trainableParameters, maxNorm: 10)
            optimizer.learningRate = schedule.rate(at: iteration)
            optimizer.update(model.head.namedParameters, gradients: gradients)
            intervalLoss += Double(components.total)
            intervalCount += 1
            meter.update((iteration + 1 - startIteration) * batch, observer: observer)
            let done = iteration + 1
            if done % reportEvery == 0 || done == iterations {
                lastLoss = intervalLoss / Double(intervalCount)
                var record = DetectorIterationRecord(iteration: done, trainingLoss: lastLoss,
                                                     learningRate: Double(optimizer.learningRate))
                if let validationViews {
                    record.validationLoss = validationLoss(model: model, views: validationViews)
                }
                history.append(record)
                observer?(.iteration(IterationSummary(iteration: done, totalIterations: iterations, trainingLoss: lastLoss,
                                                      validationLoss: record.validationLoss,
                                                      learningRate: record.learningRate)))
                intervalLoss = 0
                intervalCount = 0
                if let checkpoint, done < iterations {
                    try ObjectDetectorCheckpoint(
                        record: .init(completedIterations: done, configuration: configuration, dataFingerprint: fingerprint,
                                      labels: labels, history: history),
                        modelState: model.head.stateDictionary, optimizerState: optimizer.state).write(to: checkpoint)
                    if let interruptAfter, done >= interruptAfter {
                        throw ObjectDetectorTrainingError.interrupted(completedIterations: done, checkpoint: checkpoint.path)
                    }
                }
            }
        }
        let trainingSeconds = ProgressMeter.now() - trainingStart

        var metrics: DetectionMetrics? = nil
        if let validation, let validationViews {
            let images = ObjectDetectorEvaluation.evaluatedImages(model: model, images: validation.images, views: validationViews)
            metrics = DetectionMetrics(classes: labels, images: images,
                                       confidenceThreshold: ObjectDetectorModel.defaultConfidenceThreshold)
        }
        var metadata = ModelMetadata(task: .objectDetector, creator: CreatorInfo(tool: "coach train object-detector"))
        metadata.training = trainingRecord(configuration: configuration, iterations: iterations, training: training,
                                           views: views.count, finalLoss: lastLoss)
        if let metrics {
            metadata.metrics["validation.meanAveragePrecision50"] = metrics.meanAveragePrecision50
            metadata.metrics["validation.meanAveragePrecision"] = metrics.meanAveragePrecision
            for c in metrics.perClass {
                if let ap50 = c.ap50 { metadata.metrics["validation.\(c.label).ap50"] = ap50 }
                if let ap = c.ap { metadata.metrics["validation.\(c.label).ap"] = ap }
            }
        }
        metadata.metrics["training.loss"] = lastLoss
        let reference = BackboneReference(name: backbone.name, sha256: backbone.sha256, fileName: Backbone.defaultFileName)
        let file = try model.modelFile(metadata: metadata, backbone: reference)
        if let checkpoint { try? FileManager.default.removeItem(at: checkpoint) }
        return TrainedObjectDetector(model: model, modelFile: file, validationMetrics: metrics, finalTrainingLoss: lastLoss,
                                     iterations: iterations, featureSeconds: featureSeconds, trainingSeconds: trainingSeconds)
    }

    /// The encoded input (normalised HWC floats) and target of view `view` of `image`,
    /// exactly as training builds it before the backbone pass: view 0 is the image
    /// letterboxed as at inference, the others are augmented with the generator derived from
    /// (seed, `imageIndex`, `view`). Boxes of labels not in `labels` are left out.
    public static func trainingView(of image: RGBImage, objects: [ObjectAnnotation], labels: [String],
                                    configuration: ObjectDetectorTrainingConfiguration, imageIndex: Int,
                                    view: Int) throws -> (pixels: [Float], target: DetectionTarget) {
        let detector = DetectorConfiguration(inputWidth: configuration.inputSize, inputHeight: configuration.inputSize,
                                             classCount: max(1, labels.count))
        let index = Dictionary(uniqueKeysWithValues: labels.enumerated().map { ($1, $0) })
        let builder = DetectorViewBuilder(
            extractor: nil, encoding: DetectorInputEncoding(configuration: detector), classIndex: index,
            pipeline: try AugmentationPipeline(parsing: configuration.augmentations.joined(separator: ",")), seed: configuration.seed)
        let known = objects.filter { index[$0.label] != nil }
        let content = view > 0 && !builder.pipeline.isEmpty ? try builder.contentImage(image) : nil
        let made = try builder.makeView(image, content: content, boxes: known.map(\.box), labels: known.map { index[$0.label]! },
                                        imageIndex: imageIndex, view: view)
        return (made.pixels, made.target)
    }

    /// The anchors spread over levels of `strides` (sorted): with two levels, anchors whose
    /// area is at least 64 × 64 input pixels (4 × 4 cells of stride 16) go to stride 32, the
    /// others to stride 16; a level left without anchors is dropped.
    public static func anchorLevels(_ anchors: [AnchorSize], strides: [Int]) -> [DetectionLevel] {
        guard strides.count > 1 else { return [DetectionLevel(stride: strides[0], anchors: anchors)] }
        let large = anchors.filter { $0.width * $0.height >= 64 * 64 }
        let small = anchors.filter { $0.width * $0.height < 64 * 64 }
        return [DetectionLevel(stride: strides[0], anchors: small), DetectionLevel(stride: strides[1], anchors: large)]
            .filter { !$0.anchors.isEmpty }
    }

    /// Where `coach train object-detector --output FILE.h5` keeps its checkpoint: `FILE.checkpoint.h5`.
    public static func checkpointURL(for output: URL) -> URL { ObjectDetectorCheckpoint.url(for: output) }

    /// The views of iteration `iteration`: consecutive slices of per-epoch permutations of
    /// all views, each permutation drawn from (seed, epoch) alone.
    static func batchIndices(iteration: Int, batch: Int, viewCount: Int, seed: UInt64) -> [Int] {
        var result: [Int] = []
        var position = iteration * batch
        var cachedEpoch = -1
        var order: [Int] = []
        while result.count < batch {
            let epoch = position / viewCount
            if epoch != cachedEpoch {
                order = Array(0..<viewCount)
                var generator = SeededGenerator(seed: DetectorSeeds.mix(seed, 6, UInt64(epoch)))
                generator.shuffle(&order)
                cachedEpoch = epoch
            }
            result.append(order[position % viewCount])
            position += 1
        }
        return result
    }

    /// The mean loss over cached validation views (inference mode).
    static func validationLoss(model: ObjectDetectorModel, views: [DetectorTrainingView]) -> Double {
        var total = 0.0, count = 0
        var start = 0
        while start < views.count {
            let chunk = Array(views[start..<min(views.count, start + 16)])
            let tape = Tape(mode: .inference)
            let raws = model.head(DetectorFeatureBatch(chunk.map(\.maps), configuration: model.configuration), tape: tape)
            let (_, components) = DetectionLoss.compute(raws, targets: chunk.map(\.target), codings: model.codings)
            total += Double(components.total) * Double(chunk.count)
            count += chunk.count
            start += chunk.count
        }
        return count > 0 ? total / Double(count) : .nan
    }

    static func trainingRecord(configuration c: ObjectDetectorTrainingConfiguration, iterations: Int,
                               training: DetectionDataset, views: Int, finalLoss: Double) -> [String: JSONValue] {
        [
            "recipe": .string("transfer learning: frozen EfficientNet-Lite0 stride-16/32 maps, trained detection head"),
            "iterations": .number(Double(iterations)),
            "batchSize": .number(Double(c.batchSize)),
            "seed": .number(Double(c.seed)),
            "inputSize": .number(Double(c.inputSize)),
            "augmentations": .array(c.augmentations.map { .string($0) }),
            "viewsPerImage": .number(Double(c.viewsPerImage)),
            "cachedViews": .number(Double(views)),
            "boxCoding": .string(c.boxCoding.rawValue),
            "strides": .array(c.strides.map { .number(Double($0)) }),
            "headWidth": .number(Double(c.headWidth)),
            "headBlocks": .number(Double(c.headBlocks)),
            "learningRate": .number(c.learningRate),
            "weightDecay": .number(c.weightDecay),
            "optimizer": .string("AdamW, warm-up 5 %, cosine decay"),
            "loss": .string("5·(1 − GIoU) + BCE(objectness) + CE(class), per positive"),
            "trainingImages": .number(Double(training.images.count)),
            "trainingObjects": .number(Double(training.objectCount)),
            "annotations": .string(training.source.lastPathComponent),
        ]
    }
}

/// Why object-detector training cannot start or continue.
public enum ObjectDetectorTrainingError: LocalizedError {
    /// The configuration is invalid (every problem listed).
    case invalidConfiguration([String])
    /// The training annotations hold no boxes at all.
    case noObjects(path: String)
    /// The annotations name no images (nothing to train on or evaluate).
    case noImages(path: String)
    /// A checkpoint does not belong to this run.
    case checkpointMismatch(path: String, reason: String)
    /// `--resume` was asked for but there is no checkpoint.
    case checkpointMissing(path: String)
    /// Training stopped as asked (`interruptAfter`) with its state saved in `checkpoint`.
    case interrupted(completedIterations: Int, checkpoint: String)

    /// A sentence saying what is wrong and what to do.
    public var errorDescription: String? {
        switch self {
        case .invalidConfiguration(let problems):
            return "cannot train: " + problems.joined(separator: "; ")
        case .noObjects(let path):
            return "\(path): the training annotations contain no boxes; an object detector needs at least one labelled object"
        case let .checkpointMismatch(path, reason):
            return "cannot resume from \(path): \(reason); delete it to start over, or train without --resume"
        case .noImages(let path):
            return "\(path): the annotations name no images; there is nothing to evaluate"
        case .checkpointMissing(let path):
            return "cannot resume: there is no checkpoint at '\(path)'; train without --resume to start"
        case let .interrupted(done, checkpoint):
            return "training stopped after \(done) iterations; its state is in \(checkpoint) (continue with --resume)"
        }
    }
}
