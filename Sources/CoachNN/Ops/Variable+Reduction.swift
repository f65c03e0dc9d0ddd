/// Reductions, softmax and log-softmax on variables.
extension Variable {
    /// The shape after reducing `axes` with dimensions kept (for broadcasting gradients back).
    private func keptShape(_ axes: [Int]) -> [Int] {
        var s = shape
        for a in axes { s[Tensor.normalize(axis: a, rank: rank)] = 1 }
        return s
    }

    /// The sum of all elements (a scalar).
    public func sum() -> Variable {
        let original = shape
        return tape.record(Tensor(value.sum()), inputs: [self]) { g in
            [Tensor(repeating: g.scalar, shape: original)]
        }
    }

    /// The mean of all elements (a scalar).
    public func mean() -> Variable {
        let original = shape, n = Float(Swift.max(value.count, 1))
        return tape.record(Tensor(value.mean()), inputs: [self]) { g in
            [Tensor(repeating: g.scalar / n, shape: original)]
        }
    }

    /// Sums over `axes`.
    public func sum(alongAxes axes: [Int], keepingDimensions: Bool = false) -> Variable {
        let original = shape, kept = keptShape(axes)
        return tape.record(value.sum(alongAxes: axes, keepingDimensions: keepingDimensions), inputs: [self]) { g in
            [g.reshaped(to: kept).broadcast(to: original)]
        }
    }

    /// Means over `axes`.
    public func mean(alongAxes axes: [Int], keepingDimensions: Bool = false) -> Variable {
        let original = shape, kept = keptShape(axes)
        let n = Float(Swift.max(value.count, 1)) / Float(Swift.max(Tensor.count(of: kept), 1))
        return tape.record(value.mean(alongAxes: axes, keepingDimensions: keepingDimensions), inputs: [self]) { g in
            [g.reshaped(to: kept).broadcast(to: original) / n]
        }
    }

    /// Maxima over `axes`; the gradient is shared equally among tied maxima.
    public func max(alongAxes axes: [Int], keepingDimensions: Bool = false) -> Variable {
        let x = value, original = shape, kept = keptShape(axes)
        let m = x.max(alongAxes: axes, keepingDimensions: true)
        let out = keepingDimensions ? m : m.reshaped(to: Array(m.shape.enumerated().filter { !axes.map { Tensor.normalize(axis: $0, rank: original.count) }.contains($0.offset) }.map(\.element)))
        return tape.record(out, inputs: [self]) { g in
            let mask = Tensor.zip(x, m) { $0 == $1 ? 1 : 0 }
            let ties = mask.sum(alongAxes: axes, keepingDimensions: true)
            return [mask * (g.reshaped(to: kept) / ties).broadcast(to: original)]
        }
    }

    /// Softmax along `axis`.
    public func softmax(axis: Int = -1) -> Variable {
        let y = value.softmax(axis: axis)
        return tape.record(y, inputs: [self]) { g in
            let dot = (g * y).sum(alongAxes: [axis], keepingDimensions: true)
            return [y * (g - dot)]
        }
    }

    /// Log-softmax along `axis`.
    public func logSoftmax(axis: Int = -1) -> Variable {
        let y = value.logSoftmax(axis: axis)
        return tape.record(y, inputs: [self]) { g in
            let total = g.sum(alongAxes: [axis], keepingDimensions: true)
            return [g - y.exp() * total]
        }
    }
}
