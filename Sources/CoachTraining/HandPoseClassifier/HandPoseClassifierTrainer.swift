import CoachData
import CoachModels
import CoachNN
import Foundation

/// What a hand-pose-classifier training run produced.
public typealias HandPoseClassifierTrainingResult = PoseClassifierTrainingResult<HandPoseClassifierModel, HandPoseClassifierTrainingConfiguration>

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
    /// The processes sharing each minibatch (`mpirun -np N`; gradients summed in rank order) and the
    /// validation poses. A single process by default.
    public var communicator: Communicator = .single

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
        AllocatorTuning.retainFreedMemory()
        let config = configuration
        let used = poseIndices ?? Array(set.poses.indices)
        guard !used.isEmpty else { throw HandPoseTrainingError.noPoses }
        let poses = used.map { set.poses[$0] }
        guard poses.contains(where: \.hasDetectedJoint) else { throw HandPoseTrainingError.noDetectedJoints(poses: poses.count) }
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
        let encoding = HandPoseInputEncoding(jointSet: set.jointSet, includesDepth: set.hasDepth, scale: config.scale,
                                             rotation: config.rotation, chirality: config.chirality)
        let model = HandPoseClassifierModel(labels: labels, jointSet: set.jointSet, encoding: encoding,
                                            architecture: config.networkArchitecture,
                                            backgroundLabel: PoseClasses.backgroundLabel(among: labels), generator: &initGenerator)
        var augmenter: PoseAugmenter? = nil
        if !config.augmentations.isEmpty {
            var made = PoseAugmenter(augmentations: config.augmentations, jointSet: set.jointSet)
            made.maximumRotationDegrees = config.maximumRotationDegrees
            augmenter = made
        }
        let validationWindows = validationItems.map { windows[$0] }
        let validationTargets = validationItems.map { targets[$0] }
        let loop = PoseTrainingLoop(
            model: model, configuration: config, iterationItems: trainingItems, targets: targets, labels: labels,
            iterationSeedBase: iterationSeedBase, fingerprint: HandPoseClassifierTrainer.fingerprint(poses),
            progressPhase: "training poses", monitoredName: "the validation loss",
            input: { item, generator in
                var window = windows[item]
                augmenter?.apply(to: &window, generator: &generator)
                return window
            },
            validate: validationItems.isEmpty ? nil : {
                try HandPoseClassifierTrainer.validate(model, poses: validationWindows, targets: validationTargets,
                                                       communicator: communicator)
            },
            score: { loss, _ in -loss },
            observer: observer, communicator: communicator)
        return try loop.run(checkpoint: checkpoint, resume: resume, shouldContinue: shouldContinue,
                            trainingCount: trainingItems.count, validationCount: validationItems.count, unit: "poses")
    }

    /// Mean cross-entropy and accuracy of `poses` against `targets`.
    static func validate(_ model: HandPoseClassifierModel, poses: [PoseWindow], targets: [Int],
                         communicator: Communicator = .single) throws -> (loss: Double, accuracy: Double) {
        let probabilities = try communicator.gatherProbabilities(count: poses.count, classes: model.labels.count) {
            model.probabilities(for: Array(poses[$0]))
        }
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
