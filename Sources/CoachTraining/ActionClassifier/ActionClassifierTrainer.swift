import CoachData
import CoachModels
import CoachNN
import Foundation

/// What an action-classifier training run produced.
public typealias ActionClassifierTrainingResult = PoseClassifierTrainingResult<ActionClassifierModel, ActionClassifierTrainingConfiguration>

/// Trains an action classifier: windows cut from annotated segments (augmented), AdamW with a
/// warm-up and cosine decay, class weights for imbalance, a stratified validation split of whole clips
/// with early stopping (the best weights are restored), progress events with windows/s and ETA, and a
/// checkpoint after every iteration that `resume` continues from.
///
/// Every random choice flows from `configuration.seed`: the same data and configuration give
/// bit-identical weights, and a resumed run ends with the same weights as an uninterrupted one.
public struct ActionClassifierTrainer {
    /// The training configuration.
    public private(set) var configuration: ActionClassifierTrainingConfiguration
    /// Receives progress, iteration, note and warning events.
    public var observer: TrainingObserver?
    /// The processes sharing the work (`mpirun -np N`): minibatches are split among them and their
    /// gradients summed in rank order; the random-convolution head's features and folds are shared.
    /// Every rank ends with the same model; rank 0 alone writes checkpoints. A single process by default.
    public var communicator: Communicator = .single

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
    ///   - validationExamples: the user's own validation segments (recordings of other people or
    ///     sessions, in `dataset`'s joint order: `PoseDataset.examples(conformingTo:)`), used by every
    ///     member for early stopping and the head's share instead of a held-out fraction of the
    ///     training clips, which then all train. Their labels must be among the training labels.
    ///   - checkpoint: where to write a checkpoint after every iteration (nil: none).
    ///   - resume: continue from the checkpoint instead of starting over; it must come from the same
    ///     data and configuration.
    ///   - shouldContinue: asked after every iteration (with its number, from 1); returning false
    ///     stops with `interrupted` set, after the checkpoint is written.
    /// - Throws: `ActionTrainingError`, `ModelFileError` for checkpoint files.
    ///
    /// With several ensemble members, member i (from 0) is trained as a whole model from
    /// `configuration.member(i)`, one after another, member 0 checkpointing to `checkpoint` and the
    /// others beside it (`memberCheckpointURL`); the result's model holds the others as
    /// `additionalMembers`, and its history and validation metrics are member 0's.
    public func train(on dataset: PoseDataset, exampleIndices: [Int]? = nil, validationExamples: [PoseExample]? = nil,
                      checkpoint: URL? = nil, resume: Bool = false,
                      shouldContinue: ((Int) -> Bool)? = nil) throws -> ActionClassifierTrainingResult {
        // The configuration (and so the model file and checkpoints) records validation clips of their own.
        if configuration.validationSegments != validationExamples?.count {
            var trainer = self
            trainer.configuration.validationSegments = validationExamples?.count
            guard trainer.configuration.problems.isEmpty else { throw ActionTrainingError.invalidConfiguration(trainer.configuration.problems) }
            return try trainer.train(on: dataset, exampleIndices: exampleIndices, validationExamples: validationExamples,
                                     checkpoint: checkpoint, resume: resume, shouldContinue: shouldContinue)
        }
        let count = configuration.ensembleMembers
        guard count > 1 else {
            return try trainMember(configuration, on: dataset, exampleIndices: exampleIndices, validationExamples: validationExamples,
                                   checkpoint: checkpoint, resume: resume, shouldContinue: shouldContinue)
        }
        // Side by side, one core each, when the process has the cores and is alone (an MPI job's
        // ranks share each member's minibatches instead): a member's layers are too small to
        // split well across cores, and each member computes the same bits on any thread.
        let sideBySide = communicator.size == 1 ? ComputeThreads.concurrentJobs(count) : 1
        var results: [ActionClassifierTrainingResult] = []
        if sideBySide > 1 {
            observer?(.note("ensemble: \(count) members (seeds " + (0..<count).map { String(configuration.member($0).seed) }
                .joined(separator: ", ") + "), \(sideBySide) at a time side by side, one core each"))
            let events = EnsembleEvents(observer: observer, shouldContinue: shouldContinue, members: count)
            let outcomes = ComputeThreads.concurrentMap(count) { index in
                let outcome = Result {
                    try self.trainMember(index, on: dataset, exampleIndices: exampleIndices, validationExamples: validationExamples,
                                         checkpoint: checkpoint, resume: resume,
                                         shouldContinue: events.shouldContinue, observer: events.observer(member: index))
                }
                if case .failure = outcome { events.memberFailed() }
                return outcome
            }
            // A member's error first (the others stopped because of it), then an interruption.
            results = try outcomes.map { try $0.get() }
            if let interrupted = results.first(where: \.interrupted) { return interrupted.with(configuration: configuration) }
        } else {
            for index in 0..<count {
                observer?(.note("ensemble member \(index + 1) of \(count) (seed \(configuration.member(index).seed))"))
                let result = try trainMember(index, on: dataset, exampleIndices: exampleIndices, validationExamples: validationExamples,
                                             checkpoint: checkpoint, resume: resume,
                                             shouldContinue: shouldContinue, observer: observer)
                if result.interrupted { return result.with(configuration: configuration) }
                results.append(result)
            }
        }
        let first = results[0]
        first.model.additionalMembers = results.dropFirst().map(\.model)
        let memberMetrics = results.map(\.metrics)
        var result = first.with(configuration: configuration)
        // One head share for every member, picked on all the members' validation clips (each
        // member's own, unseen by its network and head): twice the evidence a member's own pick has.
        if let share = ActionClassifierTrainer.pickedHeadShare(memberMetrics, clipsShared: validationExamples != nil) {
            for member in result.model.members { member.randomConvolutionWeight = share }
            result.metrics["validation.loss"] = memberMetrics[0][ActionClassifierTrainer.headShareLossKey(share)]
            result.metrics["validation.accuracy"] = memberMetrics[0][ActionClassifierTrainer.headShareAccuracyKey(share)]
            result.metrics["validation.pooledLoss"] = ActionClassifierTrainer.pooledHeadShareLoss(memberMetrics, share: share)
            result.metrics["validation.lowestLossHeadShare"] = ActionClassifierTrainer.lowestLossHeadShare(memberMetrics).map(Double.init)
            let clips = Int(memberMetrics.compactMap { $0["validation.clips"] }.reduce(0, +))
            observer?(.note(ActionClassifierTrainer.headShareNote(share, evidence: "the \(count) members' \(clips) validation clips")))
        }
        result.metrics["ensembleMembers"] = Double(count)
        return result
    }

    /// Where ensemble member `index` (from 1) of a run checkpointing to `checkpoint` keeps its
    /// own checkpoint: `<name>.checkpoint.member<index + 1>.h5` beside it.
    public static func memberCheckpointURL(_ checkpoint: URL, member index: Int) -> URL {
        checkpoint.deletingPathExtension().appendingPathExtension("member\(index + 1)").appendingPathExtension("h5")
    }

    /// Every checkpoint a run writing `output` may leave: the run's and its ensemble members'.
    public static func checkpointURLs(for output: URL) -> [URL] {
        let checkpoint = checkpointURL(for: output)
        return [checkpoint] + (1..<ActionClassifierTrainingConfiguration.maximumEnsembleMembers).map { memberCheckpointURL(checkpoint, member: $0) }
    }

    /// Ensemble member `index` of `configuration.ensembleMembers`: its own seed, its checkpoint
    /// (the run's for the first, `memberCheckpointURL` for the others, resumed only if it had begun).
    private func trainMember(_ index: Int, on dataset: PoseDataset, exampleIndices: [Int]?, validationExamples: [PoseExample]?,
                             checkpoint: URL?, resume: Bool,
                             shouldContinue: ((Int) -> Bool)?, observer: TrainingObserver?) throws -> ActionClassifierTrainingResult {
        let count = configuration.ensembleMembers
        let memberCheckpoint = index == 0 ? checkpoint : checkpoint.map { ActionClassifierTrainer.memberCheckpointURL($0, member: index) }
        var memberResume = resume
        if resume, index > 0, let memberCheckpoint {
            // A later member resumes only if it had begun; rank 0's file decides for every rank.
            let exists = communicator.isRoot && FileManager.default.fileExists(atPath: memberCheckpoint.path)
            memberResume = try communicator.broadcast([exists ? 1 : 0]).first == 1
        }
        var trainer = self
        trainer.observer = observer
        return try trainer.trainMember(configuration.member(index), on: dataset, exampleIndices: exampleIndices,
                                       validationExamples: validationExamples, checkpoint: memberCheckpoint, resume: memberResume, shouldContinue: shouldContinue,
                                       phase: index == 0 ? "training windows" : "training windows, member \(index + 1) of \(count)",
                                       inEnsemble: true)
    }

    /// One member: a network trained with early stopping, then its random-convolution head.
    private func trainMember(_ config: ActionClassifierTrainingConfiguration, on dataset: PoseDataset, exampleIndices: [Int]?,
                             validationExamples: [PoseExample]? = nil, checkpoint: URL?, resume: Bool, shouldContinue: ((Int) -> Bool)?,
                             phase: String = "training windows", inEnsemble: Bool = false) throws -> ActionClassifierTrainingResult {
        AllocatorTuning.retainFreedMemory()
        let sampler = self.sampler
        let used = exampleIndices ?? Array(dataset.examples.indices)
        guard !used.isEmpty else { throw ActionTrainingError.noExamples }
        var examples = used.map { dataset.examples[$0] }
        let labels = Array(Set(examples.map(\.label))).sorted()
        guard labels.count >= 2 else { throw ActionTrainingError.tooFewClasses(found: labels) }
        let classIndex = Dictionary(uniqueKeysWithValues: labels.enumerated().map { ($1, $0) })
        // The user's validation segments follow the training ones (items from `trainingCount` on).
        let trainingCount = examples.count
        if let validationExamples {
            let unknown = Set(validationExamples.map(\.label)).subtracting(labels)
            guard unknown.isEmpty else { throw ActionTrainingError.unknownLabels(unknown.sorted(), modelLabels: labels) }
            examples += validationExamples
        }
        let targets = examples.map { classIndex[$0.label] ?? 0 }
        let prepared = examples.map { sampler.prepared($0.sequence) }

        // Random streams, all derived from the seed.
        var root = SeededGenerator(seed: config.seed)
        var splitGenerator = root.fork()
        var initGenerator = root.fork()
        let iterationSeedBase = root.next()
        let headSeed = root.next()

        // Validation split (stratified, seeded), whole clips on one side: validation segments
        // come from recordings the network never trained on, as new data will.
        var trainingItems = Array(0..<trainingCount), validationItems: [Int] = []
        if validationExamples != nil {
            validationItems = Array(trainingCount..<examples.count)
        } else if config.validationFraction > 0 {
            let split = PoseDatasetSplit.stratified(labels: examples.map(\.label), groups: examples.map(\.clipIndex),
                                                    testFraction: config.validationFraction, generator: &splitGenerator)
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
        // Validation windows, fixed.
        let stride = config.evaluationStride ?? max(1, (config.windowLength + 3) / 4)
        var validationWindows: [PoseWindow] = [], validationOwners: [Int] = []
        for (position, item) in validationItems.enumerated() {
            for window in sampler.windows(covering: prepared[item], stride: stride) {
                validationWindows.append(window)
                validationOwners.append(position)
            }
        }

        let encoding = ActionInputEncoding(windowLength: config.windowLength, jointCount: dataset.jointSet.count,
                                           includesDepth: dataset.hasDepth, includesVelocity: config.includesVelocity,
                                           chirality: config.chirality)
        let model = ActionClassifierModel(labels: labels, jointSet: dataset.jointSet, frameRate: config.frameRate,
                                          encoding: encoding, architecture: config.networkArchitecture(for: dataset.jointSet),
                                          backgroundLabel: PoseClasses.backgroundLabel(among: labels),
                                          generator: &initGenerator)
        var augmenter: PoseAugmenter? = nil
        if !config.augmentations.isEmpty {
            augmenter = PoseAugmenter(augmentations: config.augmentations, jointSet: dataset.jointSet)
            // Hide joints about as often as the training data's own detector misses them.
            augmenter?.occlusionProbability = PoseAugmenter.occlusionProbability(
                matching: PoseSequence.missedShare(of: trainingItems.map { examples[$0].sequence }))
        }
        let validationTargets = validationItems.map { targets[$0] }
        let loop = PoseTrainingLoop(
            model: model, configuration: config, iterationItems: iterationItems, targets: targets, labels: labels,
            iterationSeedBase: iterationSeedBase, fingerprint: ActionClassifierTrainer.fingerprint(examples),
            minimumIterations: config.effectiveMinimumIterations, progressPhase: phase,
            monitoredName: "validation",
            input: { item, generator in sampler.randomWindow(from: prepared[item], augmenter: augmenter, generator: &generator) },
            validate: validationItems.isEmpty ? nil : {
                let scores = try ActionClassifierTrainer.validate(model, windows: validationWindows, owners: validationOwners,
                                                                  targets: validationTargets, communicator: communicator)
                return (scores.loss, scores.accuracy)
            },
            score: { loss, accuracy in ActionClassifierTrainer.score(accuracy: accuracy, loss: loss, metric: config.earlyStoppingMetric) },
            observer: observer, communicator: communicator)
        var result = try loop.run(checkpoint: checkpoint, resume: resume, shouldContinue: shouldContinue,
                                  trainingCount: trainingItems.count, validationCount: validationItems.count, unit: "examples")
        guard !result.interrupted else { return result }
        model.referenceJointHeights = model.jointHeights(of: trainingItems.map { sampler.window(of: prepared[$0], startingAt: 0) })
            .map { $0 ?? 0 }
        if config.randomConvolutionFeatures > 0 {
            // The head bridges undetected frames itself (`fillsGaps`); only the network learns
            // from hidden joints. A built-in skeleton's bones (for custom joints, the training
            // poses' most rigid joint pairs) give it the joints' relative positions, which its
            // sums of joints' series cannot form.
            var headAugmenter = augmenter
            headAugmenter?.occlusionProbability = 0
            let fitting = RandomConvolutionFitting(featureCount: config.randomConvolutionFeatures, sampler: sampler,
                                                   encoding: encoding, augmenter: headAugmenter,
                                                   bones: SkeletonGraph(jointSet: dataset.jointSet).edges,
                                                   infersBones: dataset.jointSet.kind == .custom,
                                                   jointNames: dataset.jointSet.names,
                                                   observer: observer, communicator: communicator)
            var headGenerator = SeededGenerator(seed: headSeed)
            model.randomConvolution = try fitting.fit(sequences: trainingItems.map { prepared[$0] },
                                                  targets: trainingItems.map { targets[$0] },
                                                  groups: trainingItems.map { examples[$0].clipIndex }, classCount: labels.count,
                                                  generator: &headGenerator)
            if !validationItems.isEmpty {
                // The head's share of the mean: equal shares unless the validation clips (seen by
                // neither the network's nor the head's fit) clearly favour another (`pickedHeadShare`).
                // Each share's loss, accuracy and per-clip loss differences are kept in the
                // metrics, so an ensemble can pool them.
                var scoresByShare: [Float: (loss: Double, accuracy: Double, clipLosses: [Double])] = [:]
                for weight in ActionClassifierTrainer.headShares {
                    model.randomConvolutionWeight = weight
                    let scores = try ActionClassifierTrainer.validate(model, windows: validationWindows, owners: validationOwners,
                                                                      targets: validationTargets, communicator: communicator)
                    result.metrics[ActionClassifierTrainer.headShareLossKey(weight)] = scores.loss
                    result.metrics[ActionClassifierTrainer.headShareAccuracyKey(weight)] = scores.accuracy
                    scoresByShare[weight] = scores
                }
                let baseline = scoresByShare[ActionClassifierTrainer.headShares[0]]!.clipLosses
                result.metrics["validation.clips"] = Double(baseline.count)
                for weight in ActionClassifierTrainer.headShares.dropFirst() {
                    let differences = zip(scoresByShare[weight]!.clipLosses, baseline).map { $0 - $1 }
                    result.metrics[ActionClassifierTrainer.headShareDifferenceKey(weight)] = differences.reduce(0, +)
                    result.metrics[ActionClassifierTrainer.headShareSquaredDifferenceKey(weight)] = differences.reduce(0) { $0 + $1 * $1 }
                }
                let picked = ActionClassifierTrainer.pickedHeadShare([result.metrics])!
                let best = (weight: picked, loss: scoresByShare[picked]!.loss, accuracy: scoresByShare[picked]!.accuracy)
                result.metrics["validation.lowestLossHeadShare"] = ActionClassifierTrainer.lowestLossHeadShare([result.metrics]).map(Double.init)
                model.randomConvolutionWeight = best.weight
                result.metrics["validation.windows"] = Double(validationWindows.count)
                if !inEnsemble {
                    observer?(.note(ActionClassifierTrainer.headShareNote(best.weight, evidence: "the \(baseline.count) validation clips")))
                }
                let ensemble = (loss: best.loss, accuracy: best.accuracy)
                if let accuracy = result.metrics["validation.accuracy"] { result.metrics["validation.networkAccuracy"] = accuracy }
                result.metrics["validation.loss"] = ensemble.loss
                result.metrics["validation.accuracy"] = ensemble.accuracy
            }
        }
        return result
    }

    /// The head's shares of the mean that validation chooses from; the first (equal shares) is
    /// the default the others must clearly beat.
    public static let headShares: [Float] = [0.5, 0.25, 0.75]
    public static func headShareLossKey(_ share: Float) -> String { "validation.loss.headShare\(share)" }
    public static func headShareAccuracyKey(_ share: Float) -> String { "validation.accuracy.headShare\(share)" }
    /// Sums over the validation clips of each clip's mean window loss at `share` minus at equal shares, and of its square.
    public static func headShareDifferenceKey(_ share: Float) -> String { "validation.clipLossDifference.headShare\(share)" }
    public static func headShareSquaredDifferenceKey(_ share: Float) -> String { "validation.clipLossSquaredDifference.headShare\(share)" }

    /// The head share for members validated as `memberMetrics` say, pooling every member's
    /// validation clips: equal shares (`headShares[0]`), unless another share's mean clip loss is
    /// lower than theirs by more than one standard error of the paired difference (the "one
    /// standard error" rule of model selection). Then the lowest such share. With a few dozen
    /// clips the shares' losses are often nearly tied, and picking the lowest outright follows the
    /// noise. `clipsShared`: every member was validated on the same clips (the user's), so the
    /// standard error counts each clip once. (Members' own validation splits are drawn apart and
    /// overlap by chance only; their clips count as independent.) Nil when no member was validated.
    public static func pickedHeadShare(_ memberMetrics: [[String: Double]], clipsShared: Bool = false) -> Float? {
        let clips = memberMetrics.compactMap { $0["validation.clips"] }.reduce(0, +)
        guard clips > 0 else { return nil }
        let independentClips = clipsShared ? clips / Double(memberMetrics.count) : clips
        var best: (weight: Float, difference: Double) = (headShares[0], 0)
        for weight in headShares.dropFirst() {
            var sum = 0.0, squares = 0.0
            for metrics in memberMetrics {
                sum += metrics[headShareDifferenceKey(weight)] ?? 0
                squares += metrics[headShareSquaredDifferenceKey(weight)] ?? 0
            }
            let mean = sum / clips
            let standardError = independentClips > 1
                ? (max(0, squares - clips * mean * mean) / (clips - 1) / independentClips).squareRoot() : .infinity
            if mean + standardError < 0, mean < best.difference - 1e-12 { best = (weight, mean) }
        }
        return best.weight
    }

    /// What training says about the head share it picked on `evidence`.
    static func headShareNote(_ share: Float, evidence: String) -> String {
        share == headShares[0]
            ? "ensemble: the random-convolution head's share of the probabilities stays \(share): no other share is clearly "
              + "better (by more than one standard error of the per-clip loss) on \(evidence)"
            : "ensemble: the random-convolution head's share of the probabilities is \(share), clearly better than "
              + "\(headShares[0]) (by more than one standard error of the per-clip loss) on \(evidence)"
    }

    /// The share with the lowest loss over every member's validation windows, whatever the margin
    /// (the pick until 2026-11-30; `coach inspect` and coach-bench show it beside the pick).
    static func lowestLossHeadShare(_ memberMetrics: [[String: Double]]) -> Float? {
        var best: (weight: Float, loss: Double)? = nil
        for weight in headShares {
            guard let loss = pooledHeadShareLoss(memberMetrics, share: weight) else { continue }
            if best == nil || loss < best!.loss - 1e-9 { best = (weight, loss) }
        }
        return best?.weight
    }

    /// Each share's loss over every member's validation windows (each member's mean window loss
    /// weighted by its window count).
    static func pooledHeadShareLoss(_ memberMetrics: [[String: Double]], share: Float) -> Double? {
        var sum = 0.0, windows = 0.0
        for metrics in memberMetrics {
            guard let loss = metrics[headShareLossKey(share)], let count = metrics["validation.windows"] else { continue }
            sum += loss * count
            windows += count
        }
        return windows > 0 ? sum / windows : nil
    }

    /// The early-stopping score (higher is better): accuracy with ties broken by lower loss, or minus the loss.
    static func score(accuracy: Double, loss: Double, metric: ActionClassifierTrainingConfiguration.ValidationMetric) -> Double {
        switch metric {
        case .accuracy: return accuracy - 1e-3 * min(loss, 10)
        case .loss: return -loss
        }
    }

    /// Mean window cross-entropy and example accuracy (mean of each example's window probabilities).
    static func validate(_ model: ActionClassifierModel, windows: [PoseWindow], owners: [Int], targets: [Int],
                         communicator: Communicator = .single) throws -> (loss: Double, accuracy: Double, clipLosses: [Double]) {
        let probabilities = try communicator.gatherProbabilities(count: windows.count, classes: model.labels.count) {
            model.probabilities(for: Array(windows[$0]))
        }
        var loss = 0.0
        var sums = [[Double]](repeating: [Double](repeating: 0, count: model.labels.count), count: targets.count)
        var clipLosses = [Double](repeating: 0, count: targets.count), clipWindows = [Double](repeating: 0, count: targets.count)
        for (window, owner) in owners.enumerated() {
            let p = probabilities[window]
            let windowLoss = -Foundation.log(max(Double(p[targets[owner]]), 1e-12))
            loss += windowLoss
            clipLosses[owner] += windowLoss
            clipWindows[owner] += 1
            for c in p.indices { sums[owner][c] += Double(p[c]) }
        }
        var correct = 0
        for (owner, row) in sums.enumerated() where ActionClassifierTrainer.argmax(row) == targets[owner] { correct += 1 }
        return (loss / Double(max(windows.count, 1)), Double(correct) / Double(max(targets.count, 1)),
                zip(clipLosses, clipWindows).map { $0 / max($1, 1) })
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
}

extension PoseClassifierTrainingResult where Configuration == ActionClassifierTrainingConfiguration {
    /// The same result reported under `configuration` (an ensemble's, for its first member's run).
    func with(configuration: ActionClassifierTrainingConfiguration) -> Self {
        PoseClassifierTrainingResult(model: model, configuration: configuration, history: history, bestIteration: bestIteration,
                                     stoppedEarly: stoppedEarly, interrupted: interrupted, trainingCount: trainingCount,
                                     validationCount: validationCount, unit: unit, metrics: metrics,
                                     configurationMetadata: configuration.metadata)
    }
}
