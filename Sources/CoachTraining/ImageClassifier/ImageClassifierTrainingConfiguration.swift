import CoachData
import CoachModels
import Foundation

/// The kind of head trained on the backbone's features.
public enum ImageClassifierKind: String, Codable, CaseIterable, Sendable {
    /// L2-regularised multinomial logistic regression, fitted by L-BFGS (the default).
    case logistic
    /// One hidden ReLU layer with dropout, trained by AdamW on mini-batches.
    case mlp
}

/// Everything that decides an image-classifier training run (Create ML's defaults where it has them).
public struct ImageClassifierTrainingConfiguration: Codable, Equatable, Sendable {
    /// The head: logistic regression (default) or a small MLP.
    public var classifier: ImageClassifierKind = .logistic
    /// The backbone activations the head reads: the head's 1,280 and the stride-16 map's 112
    /// (default), or the head's alone (`--features head`, Create ML's and the peers' features).
    public var featureLayers: ImageFeatureLayers = .headAndStride16
    /// At most this many iterations: L-BFGS steps (logistic) or epochs (MLP); nil: 500 steps for
    /// the logistic head (it runs to convergence), 25 epochs for the MLP (Create ML's default).
    public var maximumIterations: Int? = nil
    /// The seed every random choice flows from (validation split, augmentation, MLP init and batches).
    public var seed: UInt64 = 0
    /// Augmentations (names of `Augmentation`): each adds one augmented copy of every training
    /// image in which only that augmentation is applied with random parameters, as Create ML's
    /// augmentation options each add a copy of the training set.
    public var augmentations: [String] = []
    /// The L2 penalty λ of the logistic head on the backbone's raw features (per-example loss:
    /// scikit-learn's C is 1/(λ·N)); nil chooses it by cross-validation over the training images
    /// (`l2PenaltyCandidates`).
    public var l2Penalty: Double? = nil
    /// The penalty when cross-validation has nothing to judge by: fewer than two training images,
    /// or one per class (no held-out image's class is among the rest).
    public static let fallbackL2Penalty = 0.01
    /// The penalties cross-validation chooses from.
    public static let l2PenaltyCandidates: [Double] = [0.3, 0.1, 0.03, 0.01, 0.003, 0.001, 0.0003, 0.0001]
    /// L-BFGS steps per cross-validation fit at most (each starts from the previous penalty's weights).
    public static let crossValidationIterations = 100
    /// Folds of the cross-validation that chooses the penalty.
    public var crossValidationFolds: Int = 5

    /// The iteration limit in force (`maximumIterations` or the head's default).
    public var effectiveMaximumIterations: Int { maximumIterations ?? (classifier == .logistic ? 500 : 25) }
    /// Hidden units of the MLP head.
    public var hiddenUnits: Int = 256
    /// Dropout on the MLP's hidden layer during training.
    public var dropout: Double = 0.2
    /// AdamW learning rate of the MLP head.
    public var learningRate: Double = 1e-3
    /// Mini-batch size of the MLP head.
    public var batchSize: Int = 32
    /// Fraction of each class held out for validation when the data has no validation split (10 %).
    public var validationFraction: Double = 0.1
    /// Stop after this many iterations without a better validation loss (the best weights are kept).
    public var earlyStoppingPatience: Int = 5
    /// Images per backbone call during feature extraction (1 keeps features independent of
    /// batch composition, so cached and recomputed features give the same model bytes).
    public var extractionBatchSize: Int = 1

    /// The defaults.
    public init() {}

    /// Every invalid value, described (empty when the configuration is usable).
    public var problems: [String] {
        var problems: [String] = []
        if let maximumIterations, maximumIterations < 1 { problems.append("--max-iterations must be at least 1 (got \(maximumIterations))") }
        if let l2Penalty, !(l2Penalty >= 0 && l2Penalty.isFinite) { problems.append("--l2-penalty must be ≥ 0 (got \(l2Penalty))") }
        if crossValidationFolds < 2 { problems.append("cross-validation needs at least 2 folds (got \(crossValidationFolds))") }
        if hiddenUnits < 1 { problems.append("--hidden-units must be at least 1 (got \(hiddenUnits))") }
        if !(0..<1).contains(dropout) { problems.append("--dropout must be in 0..<1 (got \(dropout))") }
        if !(learningRate > 0 && learningRate.isFinite) { problems.append("--learning-rate must be positive (got \(learningRate))") }
        if batchSize < 1 { problems.append("--batch-size must be at least 1 (got \(batchSize))") }
        if !(validationFraction > 0 && validationFraction < 1) {
            problems.append("--validation-fraction must be between 0 and 1 (got \(validationFraction))")
        }
        if earlyStoppingPatience < 1 { problems.append("--early-stopping-patience must be at least 1 (got \(earlyStoppingPatience))") }
        if extractionBatchSize < 1 { problems.append("the extraction batch size must be at least 1 (got \(extractionBatchSize))") }
        do { _ = try augmentationSteps() } catch { problems.append((error as? LocalizedError)?.errorDescription ?? "\(error)") }
        return problems
    }

    /// One single-step pipeline per augmentation (probability 1), in the order given.
    public func augmentationSteps() throws -> [AugmentationPipeline] {
        let pipeline = try AugmentationPipeline(parsing: augmentations.joined(separator: ","), probability: 1)
        return pipeline.steps.map { AugmentationPipeline(steps: [$0]) }
    }

    /// The configuration as model-file metadata (`training`).
    public var metadata: [String: JSONValue] {
        var values: [String: JSONValue] = [
            "classifier": .string(classifier.rawValue),
            "features": .string(featureLayers.rawValue),
            "maxIterations": .number(Double(effectiveMaximumIterations)),
            "seed": seed < (1 << 53) ? .number(Double(seed)) : .string(String(seed)),
            "augmentations": .array(augmentations.map(JSONValue.string)),
            "validationFraction": .number(validationFraction),
            "earlyStoppingPatience": .number(Double(earlyStoppingPatience)),
        ]
        switch classifier {
        case .logistic:
            values["l2Penalty"] = l2Penalty.map { .number($0) } ?? "cross-validated"
            values["solver"] = "l-bfgs on raw features"
        case .mlp:
            values["hiddenUnits"] = .number(Double(hiddenUnits))
            values["dropout"] = .number(dropout)
            values["learningRate"] = .number(learningRate)
            values["batchSize"] = .number(Double(batchSize))
            values["solver"] = "adamw on standardised features"
        }
        return values
    }
}
