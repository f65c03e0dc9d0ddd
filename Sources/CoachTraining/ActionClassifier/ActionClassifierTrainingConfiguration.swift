import CoachData
import CoachModels

/// Everything that shapes an action-classifier training run (stored in the model file's
/// `training` metadata and in checkpoints). The same configuration, data and seed give the
/// same model file, byte for byte.
public struct ActionClassifierTrainingConfiguration: Codable, Equatable, Hashable, Sendable {
    /// Frames per window (Create ML's prediction window).
    public var windowLength: Int = 45
    /// Frames per second clips are resampled to.
    public var frameRate: Double = 30
    /// Augmentations applied to training windows (default: the label-safe ones,
    /// `PoseAugmentation.labelSafe`; measured to help on people and cameras training never saw).
    public var augmentations: Set<PoseAugmentation> = PoseAugmentation.labelSafe
    /// The most passes over the training windows (Create ML's "maximum iterations").
    public var maximumIterations: Int = 60
    /// Windows per gradient step.
    public var batchSize: Int = 32
    /// AdamW's peak learning rate (after a short warm-up, it decays on a cosine).
    public var learningRate: Float = 3e-3
    /// AdamW's decoupled weight decay.
    public var weightDecay: Float = 1e-2
    /// Label smoothing of the cross-entropy.
    public var labelSmoothing: Float = 0.1
    /// Whether classes are weighted by inverse window frequency (for imbalanced data).
    public var balancesClasses: Bool = true
    /// The fraction of each class's examples held out for validation (0 turns validation and early stopping off).
    public var validationFraction: Double = 0.1
    /// How many validation segments of their own the run was given (`--validation-data`: clips of
    /// other people or sessions), which replace the `validationFraction` held out of the training
    /// clips; nil when a fraction is held out. `ActionClassifierTrainer.train` sets it.
    public var validationSegments: Int? = nil
    /// What early stopping and the choice of the kept weights watch on the validation examples.
    public enum ValidationMetric: String, Codable, Hashable, Sendable, CaseIterable {
        /// The mean cross-entropy of the validation windows (lower is better; smooth even on few examples).
        case loss
        /// The fraction of validation segments classified correctly, ties broken by the loss.
        case accuracy
    }

    /// What early stopping and the kept weights watch. The loss by default: on a small validation
    /// set accuracy plateaus early (19 of 20 right) and kept an undertrained model — 0.84 test
    /// accuracy against 0.96 with the loss on 80 generated throw clips; equal on NATOPS and the
    /// fingertip tracks.
    public var earlyStoppingMetric: ValidationMetric = .loss
    /// Iterations without a better validation score before training stops (the best weights are kept).
    public var earlyStoppingPatience: Int = 15
    /// Iterations always run before early stopping may end training.
    public var minimumIterations: Int = 0
    /// The time constant, in iterations, of an exponential moving average of the network's weights
    /// (and running statistics) that validation, early stopping and the kept model use; 0 keeps the
    /// raw weights. Five by default: over the eleven local bench sets (seeds 0–2) the ensemble rose
    /// by 0.4–1.1 points on five, and no set fell by more than 0.2 (README, "Averaged weights").
    public var weightAveraging: Double = 5

    /// The iterations always run (`minimumIterations`, at most `maximumIterations`).
    public var effectiveMinimumIterations: Int { min(minimumIterations, maximumIterations) }
    /// The network family; nil chooses by joint set (`defaultArchitecture(for:)`).
    public var architecture: ActionClassifierArchitecture.Kind? = nil
    /// Output channels of each block, overriding the architecture's default (with `strides`).
    public var channels: [Int]? = nil
    /// Temporal stride of each block, overriding the architecture's default (with `channels`).
    public var strides: [Int]? = nil
    /// Frames each temporal convolution spans, overriding the architecture's default.
    public var temporalKernelSize: Int? = nil
    /// Dropout rate, overriding the architecture's default.
    public var dropout: Float? = nil
    /// Whether temporal convolutions are depthwise-separable, overriding the architecture's default.
    public var separableTemporalConvolution: Bool? = nil
    /// Whether frame-to-frame velocities are fed to the network beside positions.
    public var includesVelocity: Bool = true
    /// How the windows' chirality is used (`.ignore` by default: a mirrored motion may be another
    /// class, as clockwise and counter-clockwise circles are).
    public var chirality: ChiralityHandling = .ignore
    /// Features of the random-convolution head (MiniRocket-style kernels, a PPV and an MPV per
    /// bias, then a logistic regression) whose probabilities are averaged with the network's;
    /// 0 trains the network alone.
    public var randomConvolutionFeatures: Int = 10_000
    /// Members of the ensemble: whole models (network and head), the first from `seed`, member i
    /// (from 0) from `seed + 1000·i`, each with its own validation split; a window's probabilities
    /// are the mean of theirs. Two by default: on data split apart from training, two members
    /// beat one with few clips and with joints undetected, for twice the training time.
    public var ensembleMembers: Int = 2
    /// Frames between evaluation windows (nil: a quarter window).
    public var evaluationStride: Int? = nil
    /// The seed every random choice flows from.
    public var seed: UInt64 = 0

    /// The most members an ensemble may have.
    public static let maximumEnsembleMembers = 8

    /// The default configuration.
    public init() {}

    /// The configuration of ensemble member `index` (from 0): one member, seeded `seed + 1000·index`.
    public func member(_ index: Int) -> ActionClassifierTrainingConfiguration {
        var member = self
        member.ensembleMembers = 1
        member.seed = seed &+ 1000 &* UInt64(index)
        return member
    }

    /// Problems with the values, one sentence each (empty when valid).
    public var problems: [String] {
        var list: [String] = []
        if !PoseLimits.windowLengths.contains(windowLength) {
            list.append("the prediction window must be \(PoseLimits.windowLengths.lowerBound)…\(PoseLimits.windowLengths.upperBound) frames (got \(windowLength))")
        }
        if let problem = PoseLimits.frameRateProblem(frameRate) { list.append("the frame rate \(problem)") }
        if maximumIterations < 1 { list.append("maximum iterations must be at least 1 (got \(maximumIterations))") }
        if batchSize < 1 { list.append("the batch size must be at least 1 (got \(batchSize))") }
        if !(learningRate > 0) || !learningRate.isFinite { list.append("the learning rate must be positive (got \(learningRate))") }
        if !(weightDecay >= 0) { list.append("weight decay must not be negative (got \(weightDecay))") }
        if !(labelSmoothing >= 0 && labelSmoothing < 1) { list.append("label smoothing must be in 0..<1 (got \(labelSmoothing))") }
        if !(validationFraction >= 0 && validationFraction < 1) {
            list.append("the validation fraction must be in 0..<1 (got \(validationFraction))")
        }
        if !(weightAveraging >= 0 && weightAveraging <= 1000) {
            list.append("weight averaging must be 0 (off) to 1000 iterations (got \(weightAveraging))")
        }
        if minimumIterations < 0 { list.append("minimum iterations must not be negative (got \(minimumIterations))") }
        if earlyStoppingPatience < 1 { list.append("early-stopping patience must be at least 1 (got \(earlyStoppingPatience))") }
        if (channels == nil) != (strides == nil) || (channels != nil && channels?.count != strides?.count) {
            list.append("give one stride per block of channels")
        }
        if let channels, channels.isEmpty || channels.contains(where: { $0 < 1 }) { list.append("every block needs at least one channel") }
        if let strides, strides.contains(where: { $0 < 1 }) { list.append("strides must be at least 1") }
        if let temporalKernelSize, temporalKernelSize < 1 { list.append("the temporal kernel must span at least 1 frame") }
        if !(1...ActionClassifierTrainingConfiguration.maximumEnsembleMembers).contains(ensembleMembers) {
            list.append("the ensemble must have 1…\(ActionClassifierTrainingConfiguration.maximumEnsembleMembers) members (got \(ensembleMembers))")
        }
        if let dropout, !(dropout >= 0 && dropout < 1) { list.append("dropout must be in 0..<1 (got \(dropout))") }
        if randomConvolutionFeatures < 0 || (randomConvolutionFeatures > 0 && randomConvolutionFeatures < 168) || randomConvolutionFeatures > 100_000 {
            list.append("random-convolution features must be 0 (off) or 168…100000 (got \(randomConvolutionFeatures))")
        }
        if let validationSegments, validationSegments < 1 { list.append("give at least one validation segment (got \(validationSegments))") }
        if let stride = evaluationStride, stride < 1 { list.append("the evaluation stride must be at least 1 frame (got \(stride))") }
        return list
    }

    /// The network family used when none is chosen: the graph network for joint sets with a
    /// built-in skeleton (`body18`, `hand21`), the temporal network for custom joint sets.
    ///
    /// Measured (`coach-bench --only action-compare`, two seeds): on the generated body18 throws
    /// the graph network scored 0.995 and 1.000 against the temporal network's 0.985 and 0.990;
    /// on NATOPS (8 custom joints, no skeleton) the temporal network scored 0.956–0.961 against
    /// 0.839–0.856; on the one-joint fingertip tracks both were within 0.01 (0.96–0.97).
    public static func defaultArchitecture(for jointSet: JointSet) -> ActionClassifierArchitecture.Kind {
        jointSet.kind == .custom ? .temporalConvolution : .graphConvolution
    }

    /// The network family for `jointSet`: `architecture`, or the default for the joint set.
    public func architectureKind(for jointSet: JointSet) -> ActionClassifierArchitecture.Kind {
        architecture ?? ActionClassifierTrainingConfiguration.defaultArchitecture(for: jointSet)
    }

    /// The network shape for `jointSet`: the architecture's default with this configuration's overrides.
    public func networkArchitecture(for jointSet: JointSet) -> ActionClassifierArchitecture {
        let graph = SkeletonGraph(jointSet: jointSet)
        var shape = architectureKind(for: jointSet) == .graphConvolution ? ActionClassifierArchitecture.graphConvolution(for: graph)
                                                                         : ActionClassifierArchitecture.temporalConvolution()
        if let channels, let strides, channels.count == strides.count, !channels.isEmpty {
            shape.channels = channels
            shape.strides = strides
        }
        if let temporalKernelSize { shape.temporalKernelSize = temporalKernelSize }
        if let dropout { shape.dropout = dropout }
        if let separableTemporalConvolution { shape.separableTemporalConvolution = separableTemporalConvolution }
        return shape
    }

    /// The configuration as free-form JSON for a model file's `training` metadata.
    public var metadata: [String: JSONValue] {
        /// A float as the decimal it was written as (0.003, not 0.003000000026077032).
        func number(_ value: Float) -> JSONValue { .number(Double("\(value)") ?? Double(value)) }
        var values: [String: JSONValue] = [
            "recipe": "action-classifier",
            "windowLength": .number(Double(windowLength)),
            "frameRate": .number(frameRate),
            "augmentations": .array(augmentations.sorted().map { .string($0.rawValue) }),
            "maximumIterations": .number(Double(maximumIterations)),
            "batchSize": .number(Double(batchSize)),
            "optimizer": "adamw",
            "learningRate": number(learningRate),
            "weightDecay": number(weightDecay),
            "labelSmoothing": number(labelSmoothing),
            "balancesClasses": .bool(balancesClasses),
            "validationFraction": .number(validationFraction),
            "earlyStoppingPatience": .number(Double(earlyStoppingPatience)),
            "earlyStoppingMetric": .string(earlyStoppingMetric.rawValue),
            "minimumIterations": .number(Double(effectiveMinimumIterations)),
            "weightAveraging": .number(weightAveraging),
            "architecture": .string(architecture?.rawValue ?? "automatic"),
            "includesVelocity": .bool(includesVelocity),
            "chirality": .string(chirality.rawValue),
            "randomConvolutionFeatures": .number(Double(randomConvolutionFeatures)),
            "ensembleMembers": .number(Double(ensembleMembers)),
            "seed": .string(String(seed)),
        ]
        if let channels { values["channels"] = .array(channels.map { .number(Double($0)) }) }
        if let strides { values["strides"] = .array(strides.map { .number(Double($0)) }) }
        if let temporalKernelSize { values["temporalKernelSize"] = .number(Double(temporalKernelSize)) }
        if let dropout { values["dropout"] = number(dropout) }
        if let separableTemporalConvolution { values["separableTemporalConvolution"] = .bool(separableTemporalConvolution) }
        if let evaluationStride { values["evaluationStride"] = .number(Double(evaluationStride)) }
        if let validationSegments { values["validationSegments"] = .number(Double(validationSegments)) }
        return values
    }
}
