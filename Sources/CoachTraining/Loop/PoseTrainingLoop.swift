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
    /// The time constant, in iterations, of an exponential moving average of the weights that
    /// validation, early stopping and the kept model use instead of the raw weights; 0 turns it off.
    var weightAveraging: Double { get }
}

extension PoseLoopConfiguration {
    var weightAveraging: Double { 0 }
}

/// An exponential moving average of a network's state (weights and running statistics), updated
/// after every optimizer step: `average ← decay · average + (1 − decay) · current`.
struct WeightAverage {
    var state: [String: Tensor]
    let decay: Float

    /// The average of `state` alone, with `decay` per step.
    init(_ state: [String: Tensor], decay: Float) {
        self.state = state
        self.decay = decay
    }

    /// The per-step decay whose time constant is `iterations` iterations of `stepsPerIteration` steps.
    static func decay(iterations: Double, stepsPerIteration: Int) -> Float {
        Float(exp(-1 / (iterations * Double(max(stepsPerIteration, 1)))))
    }

    /// Moves the average towards the parameters' current values, in place.
    mutating func update(with current: [(name: String, parameter: Parameter)]) {
        let keep = decay, take = 1 - decay
        for (name, parameter) in current {
            guard state[name]?.shape == parameter.value.shape else { state[name] = parameter.value; continue }
            parameter.value.withUnsafeBufferPointer { new in
                state[name]!.withUnsafeMutableBufferPointer { old in
                    for i in 0..<old.count { old[i] = keep * old[i] + take * new[i] }
                }
            }
        }
    }
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
    var validate: (() throws -> (loss: Double, accuracy: Double))?
    /// The early-stopping score of a validation result (higher is better).
    var score: (_ loss: Double, _ accuracy: Double) -> Double
    var observer: TrainingObserver?
    /// The processes sharing each minibatch (data-parallel); a single process by default.
    var communicator: Communicator = .single

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
        let averaging = config.weightAveraging > 0
        let averageDecay = WeightAverage.decay(iterations: config.weightAveraging, stepsPerIteration: stepsPerIteration)
        var average: WeightAverage? = nil
        if resume {
            guard let checkpoint else { throw ActionTrainingError.checkpointMissing(path: "(none given)") }
            // Rank 0's checkpoint is the job's: the other ranks (perhaps on other hosts) read its bytes.
            _ = try communicator.gatherOutcomes { () -> Bool in
                guard communicator.isRoot, !FileManager.default.fileExists(atPath: checkpoint.path) else { return true }
                throw ActionTrainingError.checkpointMissing(path: checkpoint.path)
            }
            let saved: Checkpoint
            if communicator.size > 1 {
                let bytes = try communicator.broadcast(communicator.isRoot ? Array(try Data(contentsOf: checkpoint)) : [])
                let copy = communicator.isRoot ? checkpoint : FileManager.default.temporaryDirectory
                    .appendingPathComponent("coach-\(ProcessInfo.processInfo.processIdentifier)-\(checkpoint.lastPathComponent)")
                if !communicator.isRoot { try Data(bytes).write(to: copy) }
                defer { if !communicator.isRoot { try? FileManager.default.removeItem(at: copy) } }
                saved = try Checkpoint.read(from: copy)
            } else {
                saved = try Checkpoint.read(from: checkpoint)
            }
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
            if averaging, let state = saved.averageState { average = WeightAverage(state, decay: averageDecay) }
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
                let tapeGenerator = generator.fork()
                var gradients: Gradients
                if communicator.size > 1 {
                    let step = try sharedStep(inputs: inputs, targets: batchTargets, classWeights: classWeights,
                                              generator: tapeGenerator)
                    gradients = step.gradients
                    lossSum += step.loss * Double(batch.count)
                    correct += step.correct
                } else {
                    let tape = Tape(mode: .training, generator: tapeGenerator)
                    let logits = model.logits(for: inputs, tape: tape)
                    let loss = Loss.softmaxCrossEntropy(logits: logits, labels: batchTargets, classWeights: classWeights,
                                                        labelSmoothing: config.labelSmoothing)
                    gradients = tape.gradients(of: loss)
                    lossSum += Double(loss.value.scalar) * Double(batch.count)
                    correct += zip(logits.value.argmax(axis: 1), batchTargets).filter { $0 == $1 }.count
                }
                GradientClipping.clipByGlobalNorm(&gradients, parameters: network.trainableParameters, maxNorm: 5)
                optimizer.learningRate = schedule.rate(at: iteration * stepsPerIteration + step)
                optimizer.update(network.namedParameters, gradients: gradients)
                if averaging {
                    if average == nil { average = WeightAverage(network.stateDictionary, decay: averageDecay) }
                    else { average?.update(with: network.namedParameters) }
                }
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
                // Validation judges the averaged weights when averaging (the raw ones resume training).
                let raw = average.map { _ in network.stateDictionary }
                if let average { try network.load(average.state) }
                let (loss, accuracy) = try validate()
                if let raw { try network.load(raw) }
                record.validationLoss = loss
                record.validationAccuracy = accuracy
                if earlyStopping.record(score(loss, accuracy), iteration: iteration) {
                    record.isBest = true
                    bestState = average?.state ?? network.stateDictionary
                }
                stoppedEarly = earlyStopping.shouldStop && iteration >= min(minimumIterations, config.maximumIterations)
                    && iteration < config.maximumIterations
            }
            history.append(record)
            var summary = record.summary
            summary.totalIterations = config.maximumIterations
            observer?(.iteration(summary))
            if let checkpoint, communicator.isRoot {
                let state = Checkpoint(record: .init(completedIterations: iteration, configuration: config,
                                                     dataFingerprint: fingerprint, labels: labels, history: history,
                                                     stoppedEarly: stoppedEarly),
                                       modelState: network.stateDictionary, bestState: bestState,
                                       optimizerState: optimizer.state, averageState: average?.state)
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

        if !interrupted {
            if let bestState { try network.load(bestState) } else if let average { try network.load(average.state) }
        }
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

    /// One minibatch over the ranks of a data-parallel job: each rank runs forward and backward on
    /// its share of the batch (its loss weighted by its share of the batch's example weights, so
    /// the sum is the whole batch's weighted mean), the gradients are summed in rank order, and
    /// batch norm's running statistics are averaged (weighted by share), so every rank holds the
    /// same weights after the update. Returns the summed gradients, the batch loss and the number
    /// of examples classified correctly.
    func sharedStep(inputs: [PoseWindow], targets batchTargets: [Int], classWeights: [Float]?,
                    generator: SeededGenerator) throws -> (gradients: Gradients, loss: Double, correct: Int) {
        let network = model.network
        let parameters = network.trainableParameters
        let buffers = network.namedParameters.map(\.parameter).filter { $0.kind == .buffer }
        let share = communicator.share(of: inputs.count)
        let exampleWeight = { (target: Int) -> Float in classWeights?[target] ?? 1 }
        let totalWeight = batchTargets.reduce(Float(0)) { $0 + exampleWeight($1) }
        var message: [Float] = []
        var loss: Float = 0, correct = 0
        if !share.isEmpty {
            // Dropout masks of this rank's examples: a stream of its own, fixed by the rank.
            var own = generator
            let tape = Tape(mode: .training, generator: SeededGenerator(seed: own.next() ^ UInt64(communicator.rank &+ 1) &* 0x9E37_79B9_7F4A_7C15))
            let shareTargets = Array(batchTargets[share])
            let logits = model.logits(for: Array(inputs[share]), tape: tape)
            let shareLoss = Loss.softmaxCrossEntropy(logits: logits, labels: shareTargets, classWeights: classWeights,
                                                     labelSmoothing: configuration.labelSmoothing)
            let fraction = shareTargets.reduce(Float(0)) { $0 + exampleWeight($1) } / max(totalWeight, 1e-12)
            let gradients = tape.gradients(of: shareLoss, seed: Tensor(repeating: fraction, shape: shareLoss.shape))
            for parameter in parameters {
                message += gradients[parameter]?.scalars ?? [Float](repeating: 0, count: parameter.value.count)
            }
            loss = shareLoss.value.scalar * fraction
            correct = zip(logits.value.argmax(axis: 1), shareTargets).filter { $0 == $1 }.count
        } else {
            message = [Float](repeating: 0, count: parameters.reduce(0) { $0 + $1.value.count })
        }
        // Running statistics, weighted by this rank's share of the batch.
        let weight = Float(share.count) / Float(max(inputs.count, 1))
        for buffer in buffers { message += buffer.value.scalars.map { $0 * weight } }
        message += [loss, Float(correct)]
        let sum = try communicator.sumInRankOrder(message)
        var offset = 0
        var tensors: [Tensor] = []
        for parameter in parameters {
            tensors.append(Tensor(shape: parameter.value.shape, scalars: Array(sum[offset..<(offset + parameter.value.count)])))
            offset += parameter.value.count
        }
        for buffer in buffers {
            buffer.value = Tensor(shape: buffer.value.shape, scalars: Array(sum[offset..<(offset + buffer.value.count)]))
            offset += buffer.value.count
        }
        return (Gradients(parameters: parameters, tensors: tensors), Double(sum[offset]), Int(sum[offset + 1].rounded()))
    }
}
