import CoachData
import CoachModels
import CoachNN
import Foundation

/// What a training run produced: the model (best validation weights restored) and its history.
public struct ActionClassifierTrainingResult {
    /// The trained model.
    public let model: ActionClassifierModel
    /// The configuration it was trained with.
    public let configuration: ActionClassifierTrainingConfiguration
    /// One summary per finished iteration, resumed ones included.
    public let history: [IterationSummary]
    /// The iteration whose weights the model has (the best on validation), when validating.
    public let bestIteration: Int?
    /// Whether early stopping ended training before `maximumIterations`.
    public let stoppedEarly: Bool
    /// Whether `shouldContinue` ended training (the checkpoint can resume it).
    public let interrupted: Bool
    /// Examples trained on.
    public let trainingExampleCount: Int
    /// Examples held out for validation.
    public let validationExampleCount: Int
    /// Final numbers: `training.loss`, `training.accuracy` (of the last iteration, per window),
    /// `validation.loss`, `validation.accuracy` (of the kept weights, per example), `iterations`.
    public let metrics: [String: Double]

    /// The model file to write: the model, the configuration under `training`, the metrics.
    public func modelFile(name: String? = nil) throws -> ModelFile {
        var training = configuration.metadata
        training["iterations"] = .number(Double(history.count))
        if let bestIteration { training["bestIteration"] = .number(Double(bestIteration)) }
        training["stoppedEarly"] = .bool(stoppedEarly)
        training["trainingExamples"] = .number(Double(trainingExampleCount))
        training["validationExamples"] = .number(Double(validationExampleCount))
        return try model.modelFile(name: name, training: training, metrics: metrics)
    }
}

/// Trains an action classifier: windows cut from annotated segments (augmented), AdamW with a
/// warm-up and cosine decay, class weights for imbalance, a stratified validation split with early
/// stopping (the best weights are restored), progress events with windows/s and ETA, and a
/// checkpoint after every iteration that `resume` continues from.
///
/// Every random choice flows from `configuration.seed`: the same data and configuration give
/// bit-identical weights, and a resumed run ends with the same weights as an uninterrupted one.
public struct ActionClassifierTrainer {
    /// The training configuration.
    public let configuration: ActionClassifierTrainingConfiguration
    /// Receives progress, iteration, note and warning events.
    public var observer: TrainingObserver?

    /// A trainer for `configuration`. Throws `ActionTrainingError.invalidConfiguration` listing every bad value.
    public init(configuration: ActionClassifierTrainingConfiguration, observer: TrainingObserver? = nil) throws {
        let problems = configuration.problems
        guard problems.isEmpty else { throw ActionTrainingError.invalidConfiguration(problems) }
        self.configuration = configuration
        self.observer = observer
    }

    /// Where the checkpoint for a model written to `output` lives: `<name>.checkpoint.h5` beside it.
    public static func checkpointURL(for output: URL) -> URL { ActionClassifierCheckpoint.url(for: output) }

    /// The window sampler of this configuration.
    public var sampler: PoseWindowSampler {
        PoseWindowSampler(windowLength: configuration.windowLength, frameRate: configuration.frameRate)
    }

    /// Trains on `dataset`'s examples (or those at `exampleIndices`).
    ///
    /// - Parameters:
    ///   - checkpoint: where to write a checkpoint after every iteration (nil: none).
    ///   - resume: continue from the checkpoint instead of starting over; it must come from the same
    ///     data and configuration.
    ///   - shouldContinue: asked after every iteration (with its number, from 1); returning false
    ///     stops with `interrupted` set, after the checkpoint is written.
    /// - Throws: `ActionTrainingError`, `ModelFileError` for checkpoint files.
    public func train(on dataset: PoseDataset, exampleIndices: [Int]? = nil, checkpoint: URL? = nil,
                      resume: Bool = false, shouldContinue: ((Int) -> Bool)? = nil) throws -> ActionClassifierTrainingResult {
        AllocatorTuning.retainFreedMemory()
        let config = configuration
        let sampler = self.sampler
        let used = exampleIndices ?? Array(dataset.examples.indices)
        guard !used.isEmpty else { throw ActionTrainingError.noExamples }
        let examples = used.map { dataset.examples[$0] }
        let labels = Array(Set(examples.map(\.label))).sorted()
        guard labels.count >= 2 else { throw ActionTrainingError.tooFewClasses(found: labels) }
        let classIndex = Dictionary(uniqueKeysWithValues: labels.enumerated().map { ($1, $0) })
        let targets = examples.map { classIndex[$0.label] ?? 0 }
        let prepared = examples.map { sampler.prepared($0.sequence) }

        // Random streams, all derived from the seed.
        var root = SeededGenerator(seed: config.seed)
        var splitGenerator = root.fork()
        var initGenerator = root.fork()
        let iterationSeedBase = root.next()

        // Validation split (stratified, seeded).
        var trainingItems = Array(examples.indices), validationItems: [Int] = []
        if config.validationFraction > 0 {
            let split = PoseDatasetSplit.stratified(labels: examples.map(\.label), testFraction: config.validationFraction,
                                                    generator: &splitGenerator)
            if !split.testIndices.isEmpty {
                trainingItems = split.trainIndices
                validationItems = split.testIndices
            }
        }
        let trainingLabels = Set(trainingItems.map { labels[targets[$0]] })
        guard trainingLabels.count >= 2 else { throw ActionTrainingError.tooFewClasses(found: trainingLabels.sorted()) }

        // One iteration's windows: each training segment contributes its length in windows.
        var iterationItems: [Int] = []
        for item in trainingItems {
            let count = sampler.trainingWindowCount(frameCount: prepared[item].frames.count)
            iterationItems += [Int](repeating: item, count: count)
        }
        var classWeights: [Float]? = nil
        if config.balancesClasses {
            var counts = [Int](repeating: 0, count: labels.count)
            for item in iterationItems { counts[targets[item]] += 1 }
            let present = counts.filter { $0 > 0 }.count
            classWeights = counts.map { $0 == 0 ? 0 : Float(iterationItems.count) / Float(present * $0) }
        }

        // Validation windows, fixed.
        let stride = config.evaluationStride ?? max(1, (config.windowLength + 3) / 4)
        var validationWindows: [PoseWindow] = [], validationOwners: [Int] = []
        for (position, item) in validationItems.enumerated() {
            for window in sampler.windows(covering: prepared[item], stride: stride) {
                validationWindows.append(window)
                validationOwners.append(position)
            }
        }

        let backgroundLabel = PoseClasses.backgroundLabel(among: labels)
        let encoding = ActionInputEncoding(windowLength: config.windowLength, jointCount: dataset.jointSet.count,
                                           includesDepth: dataset.hasDepth, includesVelocity: config.includesVelocity)
        let architecture = config.networkArchitecture(for: dataset.jointSet)
        let model = ActionClassifierModel(labels: labels, jointSet: dataset.jointSet, frameRate: config.frameRate,
                                          encoding: encoding, architecture: architecture, backgroundLabel: backgroundLabel,
                                          generator: &initGenerator)
        let network = model.network
        let optimizer = Adam.adamW(learningRate: config.learningRate, weightDecay: config.weightDecay)
        let stepsPerIteration = (iterationItems.count + config.batchSize - 1) / config.batchSize
        let totalSteps = stepsPerIteration * config.maximumIterations
        let warmUp = min(max(stepsPerIteration, 1) * 2, max(totalSteps / 10, 1))
        let schedule = WarmUpSchedule(CosineSchedule(base: config.learningRate, totalSteps: max(totalSteps - warmUp, 1),
                                                     minimum: config.learningRate * 0.01),
                                      warmUpSteps: warmUp)
        var augmenter: PoseAugmenter? = nil
        if !config.augmentations.isEmpty {
            augmenter = PoseAugmenter(augmentations: config.augmentations, jointSet: dataset.jointSet)
        }

        // State that a checkpoint restores.
        var history: [ActionIterationRecord] = []
        var bestState: [String: Tensor]? = nil
        var stoppedEarly = false
        let fingerprint = ActionClassifierTrainer.fingerprint(examples)
        if resume {
            guard let checkpoint else { throw ActionTrainingError.checkpointMissing(path: "(none given)") }
            guard FileManager.default.fileExists(atPath: checkpoint.path) else {
                throw ActionTrainingError.checkpointMissing(path: checkpoint.path)
            }
            let saved = try ActionClassifierCheckpoint.read(from: checkpoint)
            try ActionClassifierTrainer.check(saved.record, path: checkpoint.path, configuration: config,
                                              fingerprint: fingerprint, labels: labels)
            do {
                try network.load(saved.modelState)
                try optimizer.restore(saved.optimizerState)
            } catch {
                throw ActionTrainingError.checkpointMismatch(path: checkpoint.path, reason: "its weights do not fit this network (\(error.localizedDescription))")
            }
            history = saved.record.history
            bestState = saved.bestState
            stoppedEarly = saved.record.stoppedEarly
            observer?(.note("resuming from \(checkpoint.lastPathComponent) after iteration \(history.count) of \(config.maximumIterations)"))
        }
        var earlyStopping = EarlyStopping(patience: config.earlyStoppingPatience, higherIsBetter: true)
        for record in history {
            if let accuracy = record.validationAccuracy, let loss = record.validationLoss {
                earlyStopping.record(ActionClassifierTrainer.score(accuracy: accuracy, loss: loss, metric: config.earlyStoppingMetric), iteration: record.iteration)
            }
        }

        let startIteration = history.count
        let remainingWindows = iterationItems.count * max(config.maximumIterations - startIteration, 0)
        var meter = ProgressMeter(phase: "training windows", total: remainingWindows)
        var windowsDone = 0
        var interrupted = false
        var iteration = startIteration
        while iteration < config.maximumIterations && !stoppedEarly {
            var generator = SeededGenerator(seed: iterationSeedBase &+ UInt64(iteration + 1) &* 0x9E37_79B9_7F4A_7C15)
            var order = iterationItems
            generator.shuffle(&order)
            var lossSum = 0.0, correct = 0, seen = 0
            for stepInIteration in 0..<stepsPerIteration {
                let batch = Array(order[(stepInIteration * config.batchSize)..<min((stepInIteration + 1) * config.batchSize, order.count)])
                let windows = batch.map { sampler.randomWindow(from: prepared[$0], augmenter: augmenter, generator: &generator) }
                let batchTargets = batch.map { targets[$0] }
                let tape = Tape(mode: .training, generator: generator.fork())
                let logits = model.logits(for: windows, tape: tape)
                let loss = Loss.softmaxCrossEntropy(logits: logits, labels: batchTargets, classWeights: classWeights,
                                                    labelSmoothing: config.labelSmoothing)
                var gradients = tape.gradients(of: loss)
                GradientClipping.clipByGlobalNorm(&gradients, parameters: network.trainableParameters, maxNorm: 5)
                optimizer.learningRate = schedule.rate(at: iteration * stepsPerIteration + stepInIteration)
                optimizer.update(network.namedParameters, gradients: gradients)
                lossSum += Double(loss.value.scalar) * Double(batch.count)
                correct += zip(logits.value.argmax(axis: 1), batchTargets).filter { $0 == $1 }.count
                seen += batch.count
                windowsDone += batch.count
                meter.update(windowsDone, observer: observer)
            }
            iteration += 1
            var record = ActionIterationRecord(iteration: iteration, trainingLoss: lossSum / Double(max(seen, 1)),
                                               trainingAccuracy: Double(correct) / Double(max(seen, 1)),
                                               validationLoss: nil, validationAccuracy: nil,
                                               learningRate: Double(optimizer.learningRate), isBest: false)
            if !validationItems.isEmpty {
                let (loss, accuracy) = ActionClassifierTrainer.validate(model, windows: validationWindows, owners: validationOwners,
                                                                         targets: validationItems.map { targets[$0] })
                record.validationLoss = loss
                record.validationAccuracy = accuracy
                if earlyStopping.record(ActionClassifierTrainer.score(accuracy: accuracy, loss: loss, metric: config.earlyStoppingMetric), iteration: iteration) {
                    record.isBest = true
                    bestState = network.stateDictionary
                }
                stoppedEarly = earlyStopping.shouldStop && iteration >= config.effectiveMinimumIterations
                    && iteration < config.maximumIterations
            }
            history.append(record)
            var summary = record.summary
            summary.totalIterations = config.maximumIterations
            observer?(.iteration(summary))
            if let checkpoint {
                let state = ActionClassifierCheckpoint(
                    record: .init(completedIterations: iteration, configuration: config, dataFingerprint: fingerprint,
                                  labels: labels, history: history, stoppedEarly: stoppedEarly),
                    modelState: network.stateDictionary, bestState: bestState, optimizerState: optimizer.state)
                try state.write(to: checkpoint)
            }
            if stoppedEarly {
                observer?(.note("stopping early: validation did not improve for \(config.earlyStoppingPatience) iterations; keeping iteration \(earlyStopping.bestIteration)"))
            }
            if let shouldContinue, !shouldContinue(iteration), iteration < config.maximumIterations, !stoppedEarly {
                interrupted = true
                break
            }
        }

        if !interrupted, let bestState { try network.load(bestState) }
        var metrics: [String: Double] = ["iterations": Double(history.count)]
        if let last = history.last {
            metrics["training.loss"] = last.trainingLoss
            metrics["training.accuracy"] = last.trainingAccuracy
        }
        let kept = interrupted ? history.last : (history.last(where: \.isBest) ?? history.last)
        if let kept, let loss = kept.validationLoss, let accuracy = kept.validationAccuracy {
            metrics["validation.loss"] = loss
            metrics["validation.accuracy"] = accuracy
        }
        return ActionClassifierTrainingResult(
            model: model, configuration: config,
            history: history.map { var s = $0.summary; s.totalIterations = config.maximumIterations; return s },
            bestIteration: validationItems.isEmpty ? nil : history.last(where: \.isBest)?.iteration,
            stoppedEarly: stoppedEarly, interrupted: interrupted, trainingExampleCount: trainingItems.count,
            validationExampleCount: validationItems.count, metrics: metrics)
    }

    /// The early-stopping score (higher is better): accuracy with ties broken by lower loss, or minus the loss.
    static func score(accuracy: Double, loss: Double, metric: ActionClassifierTrainingConfiguration.ValidationMetric) -> Double {
        switch metric {
        case .accuracy: return accuracy - 1e-3 * min(loss, 10)
        case .loss: return -loss
        }
    }

    /// Mean window cross-entropy and example accuracy (mean of each example's window probabilities).
    static func validate(_ model: ActionClassifierModel, windows: [PoseWindow], owners: [Int], targets: [Int]) -> (loss: Double, accuracy: Double) {
        let probabilities = model.probabilities(for: windows)
        var loss = 0.0
        var sums = [[Double]](repeating: [Double](repeating: 0, count: model.labels.count), count: targets.count)
        for (window, owner) in owners.enumerated() {
            let p = probabilities[window]
            loss -= Foundation.log(max(Double(p[targets[owner]]), 1e-12))
            for c in p.indices { sums[owner][c] += Double(p[c]) }
        }
        var correct = 0
        for (owner, row) in sums.enumerated() where ActionClassifierTrainer.argmax(row) == targets[owner] { correct += 1 }
        return (loss / Double(max(windows.count, 1)), Double(correct) / Double(max(targets.count, 1)))
    }

    static func argmax(_ values: [Double]) -> Int {
        var best = 0
        for i in values.indices where values[i] > values[best] { best = i }
        return best
    }

    /// A 64-bit FNV-1a digest of the examples' labels, times and keypoints (hex).
    static func fingerprint(_ examples: [PoseExample]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ value: UInt64) {
            var v = value
            for _ in 0..<8 {
                hash = (hash ^ (v & 0xff)) &* 0x0000_0100_0000_01b3
                v >>= 8
            }
        }
        for example in examples {
            for byte in example.label.utf8 { mix(UInt64(byte)) }
            mix(UInt64(example.sequence.frames.count))
            for frame in example.sequence.frames {
                mix(frame.time.bitPattern)
                for keypoint in frame.keypoints {
                    guard let keypoint else { mix(0xffff); continue }
                    mix(UInt64(keypoint.x.bitPattern) << 32 | UInt64(keypoint.y.bitPattern))
                    mix(UInt64(keypoint.confidence.bitPattern) << 32 | UInt64(keypoint.z?.bitPattern ?? 0))
                }
            }
        }
        return String(hash, radix: 16)
    }

    /// Throws when a checkpoint does not belong to this run.
    static func check(_ record: ActionClassifierCheckpoint.Record, path: String, configuration: ActionClassifierTrainingConfiguration,
                      fingerprint: String, labels: [String]) throws {
        if record.configuration != configuration {
            let old = record.configuration.metadata, new = configuration.metadata
            let changed = Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }.sorted()
            throw ActionTrainingError.checkpointMismatch(path: path, reason: "it was made with different options (\(changed.joined(separator: ", ")))")
        }
        if record.dataFingerprint != fingerprint || record.labels != labels {
            throw ActionTrainingError.checkpointMismatch(path: path, reason: "it was made from different data")
        }
        if record.history.count != record.completedIterations {
            throw ActionTrainingError.checkpointMismatch(path: path, reason: "its history is inconsistent")
        }
    }
}
