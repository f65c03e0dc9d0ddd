/// A classifier's evaluation whose `--json` form is `ClassificationMetrics`' keys (the schema every
/// classifier prints) with `predictions` added: every scored example's, in evaluation order.
public protocol ClassifierEvaluationJSON: Encodable {
    associatedtype Prediction: Encodable
    var metrics: ClassificationMetrics { get }
    var predictions: [Prediction] { get }
}

private enum PredictionsKey: String, CodingKey {
    case predictions
}

extension ClassifierEvaluationJSON {
    /// Encodes the metrics' keys and every example's prediction in one object.
    public func encode(to encoder: Encoder) throws {
        try metrics.encode(to: encoder)
        var container = encoder.container(keyedBy: PredictionsKey.self)
        try container.encode(predictions, forKey: .predictions)
    }
}
