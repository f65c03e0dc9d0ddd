import CoachData
import CoachModels
import CoachNN
import Foundation

/// The hyper-parameters the pose classifiers' shared training loop reads.
protocol PoseLoopConfiguration: CheckpointableConfiguration {
    var maximumIterations: Int { get }
    var batchSize: Int { get }
    var learningRate: Float { get }
    var weightDecay: Float { get }
    var labelSmoothing: Float { get }
    var balancesClasses: Bool { get }
    var earlyStoppingPatience: Int { get }
}

/// What a pose classifier's training run produced: the model (best validation weights restored)
/// and its history.
public struct PoseClassifierTrainingResult<Model: PoseClassifierModel, Configuration> {
    /// The trained model.
    public let model: Model
    /// The configuration it was trained with.
    public let configuration: Configuration
    /// One summary per finished iteration, resumed ones included.
    public let history: [IterationSummary]
    /// The iteration whose weights the model has (the best on validation), when validating.
    public let bestIteration: Int?
    /// Whether early stopping ended training before `maximumIterations`.
    public let stoppedEarly: Bool
    /// Whether `shouldContinue` ended training (the checkpoint can resume it).
    public let interrupted: Bool
    /// Examples trained on (segments or clips for actions, poses for hand poses).
    public let trainingCount: Int
    /// Examples held out for validation.
    public let validationCount: Int
    /// What an example is, plural ("examples", "poses").
    public let unit: String
    /// Final numbers: `training.loss`, `training.accuracy` (of the last iteration, augmented),
    /// `validation.loss`, `validation.accuracy` (of the kept weights), `iterations`.
    public internal(set) var metrics: [String: Double]
    /// The configuration as model-file metadata.
    let configurationMetadata: [String: JSONValue]

    /// The model file to write: the model, the configuration under `training`, the metrics.
    public func modelFile(name: String? = nil) throws -> ModelFile {
        var training = configurationMetadata
        training["iterations"] = .number(Double(history.count))
        if let bestIteration { training["bestIteration"] = .number(Double(bestIteration)) }
        training["stoppedEarly"] = .bool(stoppedEarly)
        let key = unit.prefix(1).uppercased() + unit.dropFirst()
        training["training\(key)"] = .number(Double(trainingCount))
        training["validation\(key)"] = .number(Double(validationCount))
        return try model.modelFile(name: name, training: training, metrics: metrics, extra: [:])
    }
}

/// The minibatch loop of the action and hand-pose classifiers: AdamW with a warm-up and cosine
/// decay, class weights for imbalance, gradient clipping, early stopping on a validation score
/// (the best weights are restored), progress events, and a checkpoint after every iteration that
/// `resume` continues from. Iteration `i` draws its order and augmentations from a generator
/// derived from `iterationSeedBase` and `i` alone, so a resumed run gives the bytes an
/// uninterrupted one would.
struct PoseTrainingLoop<Model: PoseClassifierModel, Configuration: PoseLoopConfiguration> {
    var model: Model
    var configuration: Configuration
    /// The examples of one iteration (indices into `targets`; an example may appear several times).
    var iterationItems: [Int]
    /// Each example's class index.
    var targets: [Int]
    var labels: [String]
    var iterationSeedBase: UInt64
    /// Identifies the training data in checkpoints.
    var fingerprint: String
    /// Early stopping never stops before this many iterations.
    var minimumIterations = 0
    /// The progress phase, e.g. "training windows".
    var progressPhase: String
    /// What early stopping watches, for its note, e.g. "the validation loss".
    var monitoredName: String
    /// The training input of one example, augmented with `generator`.
    var input: (_ item: Int, _ generator: inout SeededGenerator) -> PoseWindow
    /// Validation loss and accuracy of the current weights; nil when nothing is held out.
    var validate: (() -> (loss: Double, accuracy: Double))?
    /// The early-stopping score of a validation result (higher is better).
    var score: (_ loss: Double, _ accuracy: Double) -> Double
    var observer: TrainingObserver?

    /// Trains `model` in place (the kept weights loaded at the end unless interrupted);
    /// `trainingCount` and `validationCount` examples of `unit` are reported in the result.
    func run(checkpoint: URL?, resume: Bool, shouldContinue: ((Int) -> Bool)?, trainingCount: Int, validationCount: Int,
             unit: String) throws -> PoseClassifierTrainingResult<Model, Configuration> {
        typealias Checkpoint = TrainingCheckpoint<Configuration>
        let config = configuration
        let network = model.network
        var classWeights: [Float]? = nil
        if config.balancesClasses {
            var counts = [Int](repeating: 0, count: labels.count)
            for item in iterationItems { counts[targets[item]] += 1 }
            let present = counts.filter { $0 > 0 }.count
            classWeights = counts.map { $0 == 0 ? 0 : Float(iterationItems.count) / Float(present * $0) }
        }
        let optimizer = Adam.adamW(learningRate: config.learningRate, weightDecay: config.weightDecay)
        let stepsPerIteration = (iterationItems.count + config.batchSize - 1) / config.batchSize
        let totalSteps = stepsPerIteration * config.maximumIterations
        let warmUp = min(max(stepsPerIteration, 1) * 2, max(totalSteps / 10, 1))
        let schedule = WarmUpSchedule(CosineSchedule(base: config.learningRate, totalSteps: max(totalSteps - warmUp, 1),
                                                     minimum: config.learningRate * 0.01),
                                      warmUpSteps: warmUp)

        // State that a checkpoint restores.
        var history: [IterationRecord] = []
        var bestState: [String: Tensor]? = nil
        var stoppedEarly = false
        if resume {
            guard let checkpoint else { throw ActionTrainingError.checkpointMissing(path: "(none given)") }
            guard FileManager.default.fileExists(atPath: checkpoint.path) else {
                throw ActionTrainingError.checkpointMissing(path: checkpoint.path)
            }
            let saved = try Checkpoint.read(from: checkpoint)
            try Checkpoint.check(saved.record, path: checkpoint.path, configuration: config, fingerprint: fingerprint,
                                 labels: labels)
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
                earlyStopping.record(score(loss, accuracy), iteration: record.iteration)
            }
        }

        let remaining = iterationItems.count * max(config.maximumIterations - history.count, 0)
        var meter = ProgressMeter(phase: progressPhase, total: remaining)
        var done = 0
        var interrupted = false
        var iteration = history.count
        while iteration < config.maximumIterations && !stoppedEarly {
            var generator = SeededGenerator(seed: iterationSeedBase &+ UInt64(iteration + 1) &* 0x9E37_79B9_7F4A_7C15)
            var order = iterationItems
            generator.shuffle(&order)
            var lossSum = 0.0, correct = 0, seen = 0
            for step in 0..<stepsPerIteration {
                let batch = Array(order[(step * config.batchSize)..<min((step + 1) * config.batchSize, order.count)])
                let inputs = batch.map { input($0, &generator) }
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
                done += batch.count
                meter.update(done, observer: observer)
            }
            iteration += 1
            var record = IterationRecord(iteration: iteration, trainingLoss: lossSum / Double(max(seen, 1)),
                                         trainingAccuracy: Double(correct) / Double(max(seen, 1)),
                                         validationLoss: nil, validationAccuracy: nil,
                                         learningRate: Double(optimizer.learningRate), isBest: false)
            if let validate {
                let (loss, accuracy) = validate()
                record.validationLoss = loss
                record.validationAccuracy = accuracy
                if earlyStopping.record(score(loss, accuracy), iteration: iteration) {
                    record.isBest = true
                    bestState = network.stateDictionary
                }
                stoppedEarly = earlyStopping.shouldStop && iteration >= min(minimumIterations, config.maximumIterations)
                    && iteration < config.maximumIterations
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
                observer?(.note("stopping early: \(monitoredName) did not improve for \(config.earlyStoppingPatience) iterations; keeping iteration \(earlyStopping.bestIteration)"))
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
        return PoseClassifierTrainingResult(
            model: model, configuration: config,
            history: history.map { var s = $0.summary; s.totalIterations = config.maximumIterations; return s },
            bestIteration: validate == nil ? nil : history.last(where: \.isBest)?.iteration,
            stoppedEarly: stoppedEarly, interrupted: interrupted, trainingCount: trainingCount,
            validationCount: validationCount, unit: unit, metrics: metrics, configurationMetadata: config.metadata)
    }
}
