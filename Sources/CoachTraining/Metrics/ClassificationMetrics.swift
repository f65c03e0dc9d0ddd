import Foundation

/// Accuracy, per-class precision/recall/F1/support and the confusion matrix of a
/// classifier's predictions. Its JSON form is the schema every Coach classifier's
/// `coach evaluate --json` prints: `task`, `accuracy`, `classes`, `confusionMatrix`
/// (rows = true class, columns = predicted, in `classes` order) and `perClass`.
public struct ClassificationMetrics: Codable, Equatable, Sendable {
    /// Precision, recall, F1 and support of one class.
    public struct ClassMetrics: Codable, Equatable, Sendable {
        public var label: String
        /// Of the examples predicted as this class, the fraction that are (0 when none predicted).
        public var precision: Double
        /// Of the examples of this class, the fraction predicted as it (0 when it has none).
        public var recall: Double
        /// Harmonic mean of precision and recall (0 when both are 0).
        public var f1: Double
        /// The number of examples whose true class this is.
        public var support: Int
    }

    /// The task that produced the predictions (e.g. `image-classifier`).
    public var task: String
    /// Fraction of correct predictions.
    public var accuracy: Double
    /// Class labels, in model order.
    public var classes: [String]
    /// counts[true][predicted].
    public var confusionMatrix: [[Int]]
    /// One entry per class, in `classes` order.
    public var perClass: [ClassMetrics]
    /// Unweighted mean of per-class recall.
    public var balancedAccuracy: Double
    /// Unweighted mean of per-class F1.
    public var macroF1: Double
    /// The number of examples.
    public var count: Int

    /// Metrics from true and predicted class indices (each in 0..<classes.count).
    public init(task: String, classes: [String], truth: [Int], predictions: [Int]) {
        precondition(truth.count == predictions.count, "truth and predictions differ in length")
        let k = classes.count
        var matrix = [[Int]](repeating: [Int](repeating: 0, count: k), count: k)
        for (t, p) in zip(truth, predictions) {
            precondition(t >= 0 && t < k && p >= 0 && p < k, "class index out of range")
            matrix[t][p] += 1
        }
        self.init(task: task, classes: classes, confusionMatrix: matrix)
    }

    /// Metrics from a confusion matrix (rows true, columns predicted).
    public init(task: String, classes: [String], confusionMatrix matrix: [[Int]]) {
        let k = classes.count
        self.task = task
        self.classes = classes
        self.confusionMatrix = matrix
        let total = matrix.reduce(0) { $0 + $1.reduce(0, +) }
        let correct = (0..<k).reduce(0) { $0 + matrix[$1][$1] }
        count = total
        accuracy = total == 0 ? 0 : Double(correct) / Double(total)
        perClass = (0..<k).map { c in
            let tp = Double(matrix[c][c])
            let predicted = Double((0..<k).reduce(0) { $0 + matrix[$1][c] })
            let actual = Double(matrix[c].reduce(0, +))
            let precision = predicted == 0 ? 0 : tp / predicted
            let recall = actual == 0 ? 0 : tp / actual
            let f1 = precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall)
            return ClassMetrics(label: classes[c], precision: precision, recall: recall, f1: f1, support: Int(actual))
        }
        let present = perClass.filter { $0.support > 0 }
        balancedAccuracy = present.isEmpty ? 0 : present.map(\.recall).reduce(0, +) / Double(present.count)
        macroF1 = present.isEmpty ? 0 : present.map(\.f1).reduce(0, +) / Double(present.count)
    }
}
