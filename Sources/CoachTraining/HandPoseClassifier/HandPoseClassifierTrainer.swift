import CoachData
import CoachModels
import CoachNN
import Foundation

/// What a hand-pose training run produced: the model (best validation weights restored) and its history.
public struct HandPoseClassifierTrainingResult {
    /// The trained model.
    public let model: HandPoseClassifierModel
    /// The configuration it was trained with.
    public let configuration: HandPoseClassifierTrainingConfiguration
    /// One summary per finished iteration, resumed ones included.
    public let history: [IterationSummary]
    /// The iteration whose weights the model has (the best on validation), when validating.
    public let bestIteration: Int?
    /// Whether early stopping ended training before `maximumIterations`.
    public let stoppedEarly: Bool
    /// Whether `shouldContinue` ended training (the checkpoint can resume it).
    public let interrupted: Bool
    /// Poses trained on.
    public let trainingPoseCount: Int
    /// Poses held out for validation.
    public let validationPoseCount: Int
    /// Final numbers: `training.loss`, `training.accuracy` (last iteration, augmented poses),
    /// `validation.loss`, `validation.accuracy` (of the kept weights), `iterations`.
    public let metrics: [String: Double]

    /// The model file to write: the model, the configuration under `training`, the metrics.
    public func modelFile(name: String? = nil) throws -> ModelFile {
        var training = configuration.metadata
        training["iterations"] = .number(Double(history.count))
        if let bestIteration { training["bestIteration"] = .number(Double(bestIteration)) }
        training["stoppedEarly"] = .bool(stoppedEarly)
        training["trainingPoses"] = .number(Double(trainingPoseCount))
        training["validationPoses"] = .number(Double(validationPoseCount))
        return try model.modelFile(name: name, training: training, metrics: metrics)
    }
}

/// Trains a hand-pose classifier: every training pose augmented afresh each iteration (the
/// action classifier's `PoseAugmenter` on one-frame windows), AdamW with a warm-up and cosine
/// decay, class weights for imbalance, a validation split (by default the last poses of each
/// class, as poses from video are consecutive frames) with early stopping on its loss (the best
/// weights are restored), progress events with poses/s and ETA, and a checkpoint after every
/// iteration that `resume` continues from.
///
/// Every random choice flows from `configuration.seed`: the same data and configuration give
/// bit-identical weights, and a resumed run ends with the same weights as an uninterrupted one.
public struct HandPoseClassifierTrainer {
    /// The training configuration.
    public let configuration: HandPoseClassifierTrainingConfiguration
    /// Receives progress, iteration, note and warning events.
    public var observer: TrainingObserver?

    /// A trainer for `configuration`. Throws `HandPoseTrainingError.invalidConfiguration` listing every bad value.
    public init(configuration: HandPoseClassifierTrainingConfiguration, observer: TrainingObserver? = nil) throws {
        let problems = configuration.problems
        guard problems.isEmpty else { throw HandPoseTrainingError.invalidConfiguration(problems) }
        self.configuration = configuration
        self.observer = observer
    }

    /// Where the checkpoint for a model written to `output` lives: `<name>.checkpoint.h5` beside it.
    public static func checkpointURL(for output: URL) -> URL {
        TrainingCheckpoint<HandPoseClassifierTrainingConfiguration>.url(for: output)
    }

    /// Trains on `set`'s poses (or those at `poseIndices`).
    ///
    /// - Parameters:
    ///   - checkpoint: where to write a checkpoint after every iteration (nil: none).
    ///   - resume: continue from the checkpoint instead of starting over; it must come from the
    ///     same data and configuration.
    ///   - shouldContinue: asked after every iteration (with its number, from 1); returning false
    ///     stops with `interrupted` set, after the checkpoint is written.
    /// - Throws: `HandPoseTrainingError`; `ActionTrainingError`'s checkpoint cases and `ModelFileError` for checkpoints.
    public func train(on set: SinglePoseSet, poseIndices: [Int]? = nil, checkpoint: URL? = nil, resume: Bool = false,
                      shouldContinue: ((Int) -> Bool)? = nil) throws -> HandPoseClassifierTrainingResult {
        // A pose network's matrices are small: OpenBLAS's threads would spend their time waiting
        // for each other (measured: a third of the CPU time in sched_yield), so one thread does the work.
        try ComputeThreads.withSingleThreadedBLAS {
            try trainSingleThreaded(on: set, poseIndices: poseIndices, checkpoint: checkpoint, resume: resume,
                                    shouldContinue: shouldContinue)
        }
    }

    private func trainSingleThreaded(on set: SinglePoseSet, poseIndices: [Int]?, checkpoint: URL?, resume: Bool,
                                     shouldContinue: ((Int) -> Bool)?) throws -> HandPoseClassifierTrainingResult {
        typealias Checkpoint = TrainingCheckpoint<HandPoseClassifierTrainingConfiguration>
        AllocatorTuning.retainFreedMemory()
        let config = configuration
        let used = poseIndices ?? Array(set.poses.indices)
        guard !used.isEmpty else { throw HandPoseTrainingError.noPoses }
        let poses = used.map { set.poses[$0] }
        let labels = Array(Set(poses.map(\.label))).sorted()
        guard labels.count >= 2 else { throw HandPoseTrainingError.tooFewClasses(found: labels) }
        let classIndex = Dictionary(uniqueKeysWithValues: labels.enumerated().map { ($1, $0) })
        let targets = poses.map { classIndex[$0.label] ?? 0 }
        let windows = poses.map { PoseWindow(pose: $0, hasDepth: set.hasDepth) }

        // Random streams, all derived from the seed.
        var root = SeededGenerator(seed: config.seed)
        var splitGenerator = root.fork()
        var initGenerator = root.fork()
        let iterationSeedBase = root.next()

        var trainingItems = Array(poses.indices), validationItems: [Int] = []
        if config.validationFraction > 0 {
            let poseLabels = poses.map(\.label)
            let split = config.validationSplit == .block
                ? PoseDatasetSplit.block(labels: poseLabels, testFraction: config.validationFraction)
                : PoseDatasetSplit.stratified(labels: poseLabels, testFraction: config.validationFraction, generator: &splitGenerator)
            if !split.testIndices.isEmpty {
                trainingItems = split.trainIndices
                validationItems = split.testIndices
            }
        }
        let trainingLabels = Set(trainingItems.map { labels[targets[$0]] })
        guard trainingLabels.count >= 2 else { throw HandPoseTrainingError.tooFewClasses(found: trainingLabels.sorted()) }
        var classWeights: [Float]? = nil
        if config.balancesClasses {
            var counts = [Int](repeating: 0, count: labels.count)
            for item in trainingItems { counts[targets[item]] += 1 }
            let present = counts.filter { $0 > 0 }.count
            classWeights = counts.map { $0 == 0 ? 0 : Float(trainingItems.count) / Float(present * $0) }
        }

        let encoding = HandPoseInputEncoding(jointSet: set.jointSet, includesDepth: set.hasDepth, scale: config.scale,
                                             rotation: config.rotation, chirality: config.chirality)
        let model = HandPoseClassifierModel(labels: labels, jointSet: set.jointSet, encoding: encoding,
                                            architecture: config.networkArchitecture,
                                            backgroundLabel: PoseClasses.backgroundLabel(among: labels), generator: &initGenerator)
        let network = model.network
        let optimizer = Adam.adamW(learningRate: config.learningRate, weightDecay: config.weightDecay)
        let stepsPerIteration = (trainingItems.count + config.batchSize - 1) / config.batchSize
        let totalSteps = stepsPerIteration * config.maximumIterations
        let warmUp = min(max(stepsPerIteration, 1) * 2, max(totalSteps / 10, 1))
        let schedule = WarmUpSchedule(CosineSchedule(base: config.learningRate, totalSteps: max(totalSteps - warmUp, 1),
                                                     minimum: config.learningRate * 0.01),
                                      warmUpSteps: warmUp)
        var augmenter: PoseAugmenter? = nil
        if !config.augmentations.isEmpty {
            var made = PoseAugmenter(augmentations: config.augmentations, jointSet: set.jointSet)
            made.maximumRotationDegrees = config.maximumRotationDegrees
            augmenter = made
        }

        // State that a checkpoint restores.
        var history: [IterationRecord] = []
        var bestState: [String: Tensor]? = nil
        var stoppedEarly = false
        let fingerprint = HandPoseClassifierTrainer.fingerprint(poses)
        if resume {
            guard let checkpoint else { throw ActionTrainingError.checkpointMissing(path: "(none given)") }
            guard FileManager.default.fileExists(atPath: checkpoint.path) else {
                throw ActionTrainingError.checkpointMissing(path: checkpoint.path)
            }
            let saved = try Checkpoint.read(from: checkpoint)
            try Checkpoint.check(saved.record, path: checkpoint.path, configuration: config, fingerprint: fingerprint, labels: labels)
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
        var earlyStopping = EarlyStopping(patience: config.earlyStoppingPatience, higherIsBetter: false)
        for record in history {
            if let loss = record.validationLoss { earlyStopping.record(loss, iteration: record.iteration) }
        }

        let validationWindows = validationItems.map { windows[$0] }
        let validationTargets = validationItems.map { targets[$0] }
        let remaining = trainingItems.count * max(config.maximumIterations - history.count, 0)
        var meter = ProgressMeter(phase: "training poses", total: remaining)
        var posesDone = 0
        var interrupted = false
        var iteration = history.count
        while iteration < config.maximumIterations && !stoppedEarly {
            var generator = SeededGenerator(seed: iterationSeedBase &+ UInt64(iteration + 1) &* 0x9E37_79B9_7F4A_7C15)
            var order = trainingItems
            generator.shuffle(&order)
            var lossSum = 0.0, correct = 0, seen = 0
            for step in 0..<stepsPerIteration {
                let batch = Array(order[(step * config.batchSize)..<min((step + 1) * config.batchSize, order.count)])
                let inputs = batch.map { item -> PoseWindow in
                    var window = windows[item]
                    augmenter?.apply(to: &window, generator: &generator)
                    return window
                }
                let batchTargets = batch.map { targets[$0] }
                let tape = Tape(mode: .training, generator: generator.fork())
                let logits = model.logits(for: inputs, tape: tape)
                let loss = Loss.softmaxCrossEntropy(logits: logits, labels: batchTargets, classWeights: classWeights,
                                                    labelSmoothing: config.labelSmoothing)
                var gradients = tape.gradients(of: loss)
                GradientClipping.clipByGlobalNorm(&gradients, parameters: network.trainableParameters, maxNorm: 5)
                optimizer.learningRate = schedule.rate(at: iteration * stepsPerIteration + step)
                optimizer.update(network.namedParameters, gradients: gradients)
                lossSum += Double(loss.value.scalar) * Double(batch.count)
                correct += zip(logits.value.argmax(axis: 1), batchTargets).filter { $0 == $1 }.count
                seen += batch.count
                posesDone += batch.count
                meter.update(posesDone, observer: observer)
            }
            iteration += 1
            var record = IterationRecord(iteration: iteration, trainingLoss: lossSum / Double(max(seen, 1)),
                                         trainingAccuracy: Double(correct) / Double(max(seen, 1)),
                                         validationLoss: nil, validationAccuracy: nil,
                                         learningRate: Double(optimizer.learningRate), isBest: false)
            if !validationItems.isEmpty {
                let (loss, accuracy) = HandPoseClassifierTrainer.validate(model, poses: validationWindows, targets: validationTargets)
                record.validationLoss = loss
                record.validationAccuracy = accuracy
                if earlyStopping.record(loss, iteration: iteration) {
                    record.isBest = true
                    bestState = network.stateDictionary
                }
                stoppedEarly = earlyStopping.shouldStop && iteration < config.maximumIterations
            }
            history.append(record)
            var summary = record.summary
            summary.totalIterations = config.maximumIterations
            observer?(.iteration(summary))
            if let checkpoint {
                let state = Checkpoint(record: .init(completedIterations: iteration, configuration: config,
                                                     dataFingerprint: fingerprint, labels: labels, history: history,
                                                     stoppedEarly: stoppedEarly),
                                       modelState: network.stateDictionary, bestState: bestState,
                                       optimizerState: optimizer.state)
                try state.write(to: checkpoint)
            }
            if stoppedEarly {
                observer?(.note("stopping early: the validation loss did not improve for \(config.earlyStoppingPatience) iterations; keeping iteration \(earlyStopping.bestIteration)"))
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
        return HandPoseClassifierTrainingResult(
            model: model, configuration: config,
            history: history.map { var s = $0.summary; s.totalIterations = config.maximumIterations; return s },
            bestIteration: validationItems.isEmpty ? nil : history.last(where: \.isBest)?.iteration,
            stoppedEarly: stoppedEarly, interrupted: interrupted, trainingPoseCount: trainingItems.count,
            validationPoseCount: validationItems.count, metrics: metrics)
    }

    /// Mean cross-entropy and accuracy of `poses` against `targets`.
    static func validate(_ model: HandPoseClassifierModel, poses: [PoseWindow], targets: [Int]) -> (loss: Double, accuracy: Double) {
        let probabilities = model.probabilities(for: poses)
        var loss = 0.0, correct = 0
        for (row, target) in zip(probabilities, targets) {
            loss -= Foundation.log(max(Double(row[target]), 1e-12))
            var best = 0
            for c in row.indices where row[c] > row[best] { best = c }
            if best == target { correct += 1 }
        }
        return (loss / Double(max(targets.count, 1)), Double(correct) / Double(max(targets.count, 1)))
    }

    /// A 64-bit FNV-1a digest of the poses' labels, hands and keypoints (hex).
    static func fingerprint(_ poses: [SinglePose]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ value: UInt64) {
            hash ^= value
            hash = hash &* 0x0000_0100_0000_01B3
        }
        for pose in poses {
            for byte in pose.label.utf8 { mix(UInt64(byte)) }
            mix(UInt64(pose.chirality.map { Chirality.allCases.firstIndex(of: $0) ?? 0 } ?? 9))
            for keypoint in pose.keypoints {
                guard let keypoint else { mix(0xFFFF); continue }
                mix(UInt64(keypoint.x.bitPattern) << 32 | UInt64(keypoint.y.bitPattern))
                mix(UInt64(keypoint.confidence.bitPattern) << 32 | UInt64(keypoint.z?.bitPattern ?? 0))
            }
        }
        return String(hash, radix: 16)
    }
}
