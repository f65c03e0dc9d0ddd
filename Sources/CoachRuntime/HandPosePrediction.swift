/// What a hand-pose classifier says about one hand pose.
public struct HandPosePrediction: Equatable, Sendable {
    /// The most likely class.
    public var label: String
    /// Its probability.
    public var confidence: Float
    /// Every class's probability, in the model's label order.
    public var probabilities: [(label: String, probability: Float)]
    /// The hand the pose was given as (nil when not given).
    public var chirality: Chirality?

    /// The probability of `label` (0 for a label the model does not know).
    public func probability(of label: String) -> Float {
        probabilities.first { $0.label == label }?.probability ?? 0
    }

    /// Predictions are equal when every field is.
    public static func == (lhs: HandPosePrediction, rhs: HandPosePrediction) -> Bool {
        lhs.label == rhs.label && lhs.confidence == rhs.confidence && lhs.chirality == rhs.chirality
            && lhs.probabilities.map(\.label) == rhs.probabilities.map(\.label)
            && lhs.probabilities.map(\.probability) == rhs.probabilities.map(\.probability)
    }
}
