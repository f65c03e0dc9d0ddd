/// What an action classifier says about one window of poses.
public struct ActionPrediction: Equatable, Sendable {
    /// The most likely class, or nil when its confidence is below the classifier's threshold.
    public var label: String?
    /// The most likely class, whatever its confidence.
    public var topLabel: String
    /// The top class's probability.
    public var confidence: Float
    /// Every class's probability, in the model's label order.
    public var probabilities: [(label: String, probability: Float)]
    /// When the window's first frame was observed, in the caller's time (seconds).
    public var startTime: Double
    /// When the window's last frame ends (its time plus one frame interval).
    public var endTime: Double

    /// The probability of `label` (0 for a label the model does not know).
    public func probability(of label: String) -> Float {
        probabilities.first { $0.label == label }?.probability ?? 0
    }

    /// Predictions are equal when every field is.
    public static func == (lhs: ActionPrediction, rhs: ActionPrediction) -> Bool {
        lhs.label == rhs.label && lhs.topLabel == rhs.topLabel && lhs.confidence == rhs.confidence
            && lhs.startTime == rhs.startTime && lhs.endTime == rhs.endTime
            && lhs.probabilities.map(\.label) == rhs.probabilities.map(\.label)
            && lhs.probabilities.map(\.probability) == rhs.probabilities.map(\.probability)
    }
}
