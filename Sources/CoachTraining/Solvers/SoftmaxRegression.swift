import CoachModels
import Foundation

/// L2-regularised multinomial logistic regression, fitted by L-BFGS on full batches.
///
/// Minimises `(1/N) Σ −log softmax(x·W + b)[y] + (λ/2)·‖W‖²` (the bias is not penalised),
/// starting from zero weights, so fitting is deterministic. Features should be
/// standardised (see `FeatureStandardization`) for the penalty and the solver to behave.
public struct SoftmaxRegression: Sendable {
    /// The L2 penalty λ on the weights (per example: the loss is a mean).
    public var l2Penalty: Double
    /// The L-BFGS settings.
    public var minimizer: LBFGSMinimizer

    /// A regression with penalty `l2Penalty`.
    public init(l2Penalty: Double, minimizer: LBFGSMinimizer = LBFGSMinimizer()) {
        self.l2Penalty = l2Penalty
        self.minimizer = minimizer
    }

    /// A fitted model: weight [D, C] and bias [C].
    public struct Parameters: Equatable, Sendable {
        /// [features, classes].
        public var weight: Tensor
        /// [classes].
        public var bias: Tensor

        /// Class logits [N, C] for features [N, D] (a thin product: `weight` has a column per class).
        public func logits(_ features: Tensor) -> Tensor { Tensor.thinMatmul(features, weight) + bias }
    }

    /// The objective's value (data loss + penalty), the data loss alone, and the gradient
    /// for parameters packed as W (row-major D×C) then b. With `sampleWeights`, the data loss is
    /// the weighted mean `Σ wᵢ·lossᵢ / Σ wᵢ`.
    public func objective(_ packed: [Float], features: Tensor, labels: [Int], classCount: Int,
                          sampleWeights: [Float]? = nil) -> (value: Double, loss: Double, gradient: [Float]) {
        objective(packed, blocks: [features], labels: labels, classCount: classCount, sampleWeights: sampleWeights)
    }

    /// The same over the rows of `blocks` [Nᵢ, D] taken one after the other (as if concatenated,
    /// without the copy): `labels` and `sampleWeights` run over all of them.
    public func objective(_ packed: [Float], blocks: [Tensor], labels: [Int], classCount: Int,
                          sampleWeights: [Float]? = nil) -> (value: Double, loss: Double, gradient: [Float]) {
        let featureCount = blocks[0].shape[1]
        let parameters = unpack(packed, featureCount: featureCount, classCount: classCount)
        precondition(blocks.reduce(0) { $0 + $1.shape[0] } == labels.count, "one label per row")
        let totalWeight = sampleWeights.map { Double($0.reduce(0, +)) } ?? Double(labels.count)
        let scale = 1 / Float(max(totalWeight, 1e-12))
        var loss = 0.0
        var gradient = [Float](repeating: 0, count: featureCount * classCount)
        var biasGradient = [Float](repeating: 0, count: classCount)
        var first = 0
        let rowsPerPass = SoftmaxRegression.rowsPerPass(featureCount: featureCount)
        for block in blocks {
            let n = block.shape[0]
            // Xᵀ·(P − Y) transposed [C, D]. The rows go in passes small enough to stay in the cache
            // between their logits and their share of the gradient, so the features are read from
            // memory once per evaluation instead of twice; each sum still runs over the rows in order.
            var sums = [Float](repeating: 0, count: classCount * featureCount)
            for lower in stride(from: 0, to: n, by: rowsPerPass) {
                let rows = lower..<min(n, lower + rowsPerPass)
                let probabilities = (Tensor.thinMatmul(block, rows: rows, parameters.weight) + parameters.bias).softmax(axis: -1)
                var residual = probabilities.scalars  // P − Y, then weighted and divided by the total weight
                for row in 0..<rows.count {
                    let item = first + rows.lowerBound + row
                    let label = labels[item], weight = sampleWeights?[item] ?? 1
                    loss -= Double(weight) * Foundation.log(max(Double(probabilities.scalars[row * classCount + label]), 1e-30))
                    residual[row * classCount + label] -= 1
                    for c in 0..<classCount { residual[row * classCount + c] *= weight * scale }
                }
                residual.withUnsafeBufferPointer { pr in
                    Tensor.accumulateThinTransposed(block, rows: rows, pr.baseAddress!, columns: classCount, into: &sums)
                }
                for row in 0..<rows.count { for c in 0..<classCount { biasGradient[c] += residual[row * classCount + c] } }
            }
            for f in 0..<featureCount {
                for c in 0..<classCount { gradient[f * classCount + c] += sums[c * featureCount + f] }
            }
            first += n
        }
        loss /= max(totalWeight, 1e-12)
        let lambda = Float(l2Penalty)
        var penalty = 0.0
        for index in gradient.indices {
            let w = parameters.weight.scalars[index]
            gradient[index] += lambda * w
            penalty += Double(w) * Double(w)
        }
        gradient += biasGradient
        return (loss + 0.5 * l2Penalty * penalty, loss, gradient)
    }

    /// Rows per pass of `objective`: about 1 MiB of features, in whole multiples of 32 rows, so a
    /// pass stays in a core's L2 between its logits and its share of the gradient (32 rows of
    /// 10,000 features on a 2-core Intel Xeon with 2 MiB of L2 each; the 64 rows of the 2 MiB
    /// passes before spilled: NATOPS training, two members side by side, 15.6 and 15.9 s → 14.9 and
    /// 15.3 s, the same bytes). The pass size never changes a bit: every sum runs over the rows in
    /// order whatever the passes.
    static func rowsPerPass(featureCount: Int) -> Int {
        max(1, (1 << 20) / max(1, featureCount * MemoryLayout<Float>.size) / 32) * 32
    }

    /// Fits the regression on `features` [N, D] with `labels` in 0..<classCount for at most
    /// `maximumIterations` L-BFGS steps from `start` (zero weights by default), the rows weighted
    /// by `sampleWeights` if given; `observer(iteration, parameters, loss)` sees each step (the
    /// data loss, without the penalty) and may return false to stop.
    public func fit(features: Tensor, labels: [Int], classCount: Int, maximumIterations: Int,
                    sampleWeights: [Float]? = nil, start: Parameters? = nil,
                    observer: ((Int, Parameters, Double) -> Bool)? = nil)
        -> (parameters: Parameters, termination: LBFGSMinimizer.Termination) {
        fit(blocks: [features], labels: labels, classCount: classCount, maximumIterations: maximumIterations,
            sampleWeights: sampleWeights, start: start, observer: observer)
    }

    /// The same fit over the rows of `blocks` taken one after the other (see `objective(_:blocks:…)`).
    public func fit(blocks: [Tensor], labels: [Int], classCount: Int, maximumIterations: Int,
                    sampleWeights: [Float]? = nil, start: Parameters? = nil,
                    observer: ((Int, Parameters, Double) -> Bool)? = nil)
        -> (parameters: Parameters, termination: LBFGSMinimizer.Termination) {
        let featureCount = blocks[0].shape[1]
        let origin = start.map { $0.weight.scalars + $0.bias.scalars }
            ?? [Float](repeating: 0, count: featureCount * classCount + classCount)
        let result = minimizer.minimize(
            from: origin, maximumIterations: maximumIterations,
            objective: { packed in
                let evaluation = objective(packed, blocks: blocks, labels: labels, classCount: classCount,
                                           sampleWeights: sampleWeights)
                return (evaluation.value, evaluation.gradient)
            },
            observer: { iteration, packed, _ in
                guard let observer else { return true }
                let parameters = unpack(packed, featureCount: featureCount, classCount: classCount)
                let loss = objective(packed, blocks: blocks, labels: labels, classCount: classCount,
                                     sampleWeights: sampleWeights).loss
                return observer(iteration, parameters, loss)
            })
        return (unpack(result.point, featureCount: featureCount, classCount: classCount), result.termination)
    }

    func unpack(_ packed: [Float], featureCount: Int, classCount: Int) -> Parameters {
        let weightCount = featureCount * classCount
        return Parameters(weight: Tensor(shape: [featureCount, classCount], scalars: Array(packed[0..<weightCount])),
                          bias: Tensor(shape: [classCount], scalars: Array(packed[weightCount...])))
    }
}

/// Per-feature standardisation `(x − mean) / scale`, fitted on training features; folded
/// into a head's first layer when a model is saved.
public struct FeatureStandardization: Equatable, Sendable {
    /// Per-feature mean.
    public var mean: [Float]
    /// Per-feature standard deviation (1 for features that do not vary).
    public var scale: [Float]

    /// The mean and standard deviation of each column of `features` [N, D] (population).
    public init(fitting features: Tensor) {
        let n = features.shape[0], d = features.shape[1]
        var sums = [Double](repeating: 0, count: d), squares = [Double](repeating: 0, count: d)
        features.withUnsafeBufferPointer { values in
            for row in 0..<n {
                for column in 0..<d {
                    let value = Double(values[row * d + column])
                    sums[column] += value
                    squares[column] += value * value
                }
            }
        }
        let count = Double(max(n, 1))
        mean = sums.map { Float($0 / count) }
        scale = zip(sums, squares).map { sum, square in
            let variance = max(0, square / count - (sum / count) * (sum / count))
            return variance > 1e-12 ? Float(variance.squareRoot()) : 1
        }
    }

    /// The identity (mean 0, scale 1) for `width` features: no standardisation.
    public init(identityOfWidth width: Int) {
        mean = [Float](repeating: 0, count: width)
        scale = [Float](repeating: 1, count: width)
    }

    /// `features` [N, D] standardised.
    public func apply(_ features: Tensor) -> Tensor {
        // The identity (the logistic head's raw features) shares the input's storage: (x − 0) / 1
        // is x, and a copy of every feature vector would cost as much memory as the features.
        if mean.allSatisfy({ $0 == 0 }) && scale.allSatisfy({ $0 == 1 }) { return features }
        let d = mean.count
        var values = features.scalars
        for index in values.indices {
            let column = index % d
            values[index] = (values[index] - mean[column]) / scale[column]
        }
        return Tensor(shape: features.shape, scalars: values)
    }

    /// The layer `x ↦ ((x − mean)/scale)·weight + bias` rewritten to act on raw x.
    public func folded(weight: Tensor, bias: Tensor) -> ImageClassifierHead.Layer {
        let d = weight.shape[0], outputs = weight.shape[1]
        var newWeight = weight.scalars, newBias = bias.scalars.map(Double.init)
        for row in 0..<d {
            for column in 0..<outputs {
                let scaled = weight.scalars[row * outputs + column] / scale[row]
                newWeight[row * outputs + column] = scaled
                newBias[column] -= Double(mean[row]) * Double(scaled)
            }
        }
        return ImageClassifierHead.Layer(weight: Tensor(shape: [d, outputs], scalars: newWeight),
                                         bias: Tensor(shape: [outputs], scalars: newBias.map { Float($0) }))
    }
}
