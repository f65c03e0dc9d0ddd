import Foundation

/// Loss functions. Each returns a scalar variable (the mean over examples).
public enum Loss {
    /// Softmax cross-entropy of `logits` [N, C] against integer `labels`.
    ///
    /// - Parameters:
    ///   - classWeights: per-class weights [C] (e.g. inverse frequency); the mean is
    ///     weighted: Σ wᵢ·lossᵢ / Σ wᵢ.
    ///   - labelSmoothing: ε spreads ε of each target's mass uniformly over all classes.
    ///   - exampleWeights: optional per-example weights [N] (e.g. a mask of valid rows).
    public static func softmaxCrossEntropy(logits: Variable, labels: [Int], classWeights: [Float]? = nil,
                                           labelSmoothing: Float = 0, exampleWeights: [Float]? = nil) -> Variable {
        precondition(logits.rank == 2 && logits.shape[0] == labels.count,
                     "logits [N, C] and N labels expected, got \(logits.shape) and \(labels.count)")
        let n = labels.count, c = logits.shape[1]
        let on = 1 - labelSmoothing + labelSmoothing / Float(c), off = labelSmoothing / Float(c)
        var targets = [Float](repeating: off, count: n * c)
        var weights = [Float](repeating: 1, count: n)
        for (i, label) in labels.enumerated() {
            precondition(label >= 0 && label < c, "label \(label) out of range 0..<\(c)")
            targets[i * c + label] = on
            if let classWeights { weights[i] *= classWeights[label] }
            if let exampleWeights { weights[i] *= exampleWeights[i] }
        }
        return softmaxCrossEntropy(logits: logits, probabilities: Tensor(shape: [n, c], scalars: targets),
                                   exampleWeights: weights)
    }

    /// Softmax cross-entropy against target distributions [N, C] (rows sum to 1),
    /// with optional per-example weights (weighted mean).
    public static func softmaxCrossEntropy(logits: Variable, probabilities: Tensor,
                                           exampleWeights: [Float]? = nil) -> Variable {
        let n = logits.shape[0]
        let w = exampleWeights ?? [Float](repeating: 1, count: n)
        let total = Swift.max(w.reduce(0, +), 1e-12)
        let weightColumn = Tensor(shape: [n, 1], scalars: w.map { $0 / total })
        let perExample = (logits.logSoftmax(axis: -1) * (probabilities * weightColumn))
        return -perExample.sum()
    }

    /// Binary cross-entropy with logits (numerically stable), mean over elements,
    /// optionally weighted per element (weights broadcast to the logits' shape).
    public static func binaryCrossEntropyWithLogits(logits: Variable, targets: Tensor,
                                                    weights: Tensor? = nil,
                                                    positiveWeight: Float = 1) -> Variable {
        precondition(logits.shape == targets.shape, "logits \(logits.shape) and targets \(targets.shape) differ")
        let x = logits.value
        let w = weights?.broadcast(to: x.shape) ?? Tensor.ones(x.shape)
        let total = Swift.max(w.sum(), 1e-12)
        // loss = pw·t·softplus(−x) + (1−t)·softplus(x)
        let value = Tensor(shape: x.shape) { out in
            for i in 0..<out.count {
                let xi = x.scalars[i], t = targets.scalars[i]
                let spNeg = softplus(-xi), spPos = softplus(xi)
                out[i] = w.scalars[i] * (positiveWeight * t * spNeg + (1 - t) * spPos)
            }
        }
        return logits.tape.record(Tensor(value.sum() / total), inputs: [logits]) { g in
            [Tensor(shape: x.shape) { out in
                for i in 0..<out.count {
                    let xi = x.scalars[i], t = targets.scalars[i], s = Tensor.sigmoid(xi)
                    // d/dx [pw·t·softplus(−x) + (1−t)·softplus(x)] = −pw·t·(1−s) + (1−t)·s
                    out[i] = g.scalar * w.scalars[i] * (-positiveWeight * t * (1 - s) + (1 - t) * s) / total
                }
            }]
        }
    }

    /// Smooth L1 (Huber with transition `beta`), mean over elements, optionally weighted.
    public static func smoothL1(_ prediction: Variable, _ target: Tensor, beta: Float = 1,
                                weights: Tensor? = nil) -> Variable {
        precondition(prediction.shape == target.shape, "prediction \(prediction.shape) and target \(target.shape) differ")
        let d = prediction.value - target
        let w = weights?.broadcast(to: d.shape) ?? Tensor.ones(d.shape)
        let total = Swift.max(w.sum(), 1e-12)
        var sum: Float = 0
        for i in 0..<d.count {
            let a = Swift.abs(d.scalars[i])
            sum += w.scalars[i] * (a < beta ? 0.5 * a * a / beta : a - 0.5 * beta)
        }
        return prediction.tape.record(Tensor(sum / total), inputs: [prediction]) { g in
            [Tensor(shape: d.shape) { out in
                for i in 0..<out.count {
                    let di = d.scalars[i]
                    let slope = Swift.abs(di) < beta ? di / beta : (di > 0 ? 1 : -1)
                    out[i] = g.scalar * w.scalars[i] * slope / total
                }
            }]
        }
    }

    /// Mean squared error.
    public static func meanSquaredError(_ prediction: Variable, _ target: Tensor) -> Variable {
        (prediction - target).squared().mean()
    }

    @inline(__always)
    static func softplus(_ x: Float) -> Float {
        x > 0 ? x + Foundation.log1p(Foundation.exp(-x)) : Foundation.log1p(Foundation.exp(x))
    }
}
