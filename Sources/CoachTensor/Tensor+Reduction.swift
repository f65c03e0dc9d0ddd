import Foundation

/// Reductions over axes, softmax and log-softmax.
extension Tensor {
    /// Views the shape as [outer, n, inner] around `axis`.
    @inline(__always)
    func split(around axis: Int) -> (outer: Int, n: Int, inner: Int) {
        (shape[..<axis].reduce(1, *), shape[axis], shape[(axis + 1)...].reduce(1, *))
    }

    /// Reduces one axis with `initial` and `combine`, then applies `finish` (e.g. divide by n).
    private func reduce(axis: Int, keepingDimensions: Bool, initial: Float,
                        _ combine: (Float, Float) -> Float, finish: (Float, Int) -> Float) -> Tensor {
        let a = Tensor.normalize(axis: axis, rank: rank)
        let (outer, n, inner) = split(around: a)
        var outShape = shape
        if keepingDimensions { outShape[a] = 1 } else { outShape.remove(at: a) }
        return Tensor(shape: outShape) { out in
            scalars.withUnsafeBufferPointer { p in
                for o in 0..<outer {
                    for i in 0..<inner { out[o * inner + i] = initial }
                    for k in 0..<n {
                        let base = (o * n + k) * inner
                        for i in 0..<inner { out[o * inner + i] = combine(out[o * inner + i], p[base + i]) }
                    }
                    for i in 0..<inner { out[o * inner + i] = finish(out[o * inner + i], n) }
                }
            }
        }
    }

    private func reduce(axes: [Int], keepingDimensions: Bool,
                        _ one: (Tensor, Int) -> Tensor) -> Tensor {
        let normalized = Set(axes.map { Tensor.normalize(axis: $0, rank: rank) }).sorted(by: >)
        var t = self
        for a in normalized { t = one(t, a) }
        if !keepingDimensions {
            var outShape = shape
            for a in normalized { outShape.remove(at: a) }
            t = t.reshaped(to: outShape)
        }
        return t
    }

    /// The sum over all elements, as a scalar.
    public func sum() -> Float {
        withUnsafeBufferPointer { p in
            var s: Double = 0
            for x in p { s += Double(x) }
            return Float(s)
        }
    }

    /// The mean over all elements.
    public func mean() -> Float { count == 0 ? 0 : sum() / Float(count) }

    /// Sums over `axes`.
    public func sum(alongAxes axes: [Int], keepingDimensions: Bool = false) -> Tensor {
        reduce(axes: axes, keepingDimensions: keepingDimensions) {
            $0.reduce(axis: $1, keepingDimensions: true, initial: 0, +) { v, _ in v }
        }
    }

    /// Means over `axes`.
    public func mean(alongAxes axes: [Int], keepingDimensions: Bool = false) -> Tensor {
        reduce(axes: axes, keepingDimensions: keepingDimensions) {
            $0.reduce(axis: $1, keepingDimensions: true, initial: 0, +) { v, n in v / Float(n) }
        }
    }

    /// Maxima over `axes`.
    public func max(alongAxes axes: [Int], keepingDimensions: Bool = false) -> Tensor {
        reduce(axes: axes, keepingDimensions: keepingDimensions) {
            $0.reduce(axis: $1, keepingDimensions: true, initial: -.infinity, { Swift.max($0, $1) }) { v, _ in v }
        }
    }

    /// Minima over `axes`.
    public func min(alongAxes axes: [Int], keepingDimensions: Bool = false) -> Tensor {
        reduce(axes: axes, keepingDimensions: keepingDimensions) {
            $0.reduce(axis: $1, keepingDimensions: true, initial: .infinity, { Swift.min($0, $1) }) { v, _ in v }
        }
    }

    /// The largest element.
    public func max() -> Float { scalars.max() ?? -.infinity }

    /// The index of the maximum along `axis` (first one on ties), axis removed.
    public func argmax(axis: Int = -1) -> [Int] {
        let a = Tensor.normalize(axis: axis, rank: rank)
        let (outer, n, inner) = split(around: a)
        var result = [Int](repeating: 0, count: outer * inner)
        withUnsafeBufferPointer { p in
            for o in 0..<outer {
                for i in 0..<inner {
                    var best = -Float.infinity, bestK = 0
                    for k in 0..<n {
                        let v = p[(o * n + k) * inner + i]
                        if v > best { best = v; bestK = k }
                    }
                    result[o * inner + i] = bestK
                }
            }
        }
        return result
    }

    /// Sums a broadcast result back down to `target` (the inverse of broadcasting,
    /// used by gradients).
    public func summed(toShape target: [Int]) -> Tensor {
        if shape == target { return self }
        let lead = rank - target.count
        precondition(lead >= 0, "cannot reduce \(shape) to \(target)")
        var axes = Array(0..<lead)
        for (i, d) in target.enumerated() where d == 1 && shape[lead + i] != 1 { axes.append(lead + i) }
        return sum(alongAxes: axes, keepingDimensions: true).reshaped(to: target)
    }

    /// Softmax along `axis` (numerically stable).
    public func softmax(axis: Int = -1) -> Tensor {
        softmaxLike(axis: axis, log: false)
    }

    /// Log-softmax along `axis` (numerically stable).
    public func logSoftmax(axis: Int = -1) -> Tensor {
        softmaxLike(axis: axis, log: true)
    }

    private func softmaxLike(axis: Int, log: Bool) -> Tensor {
        let a = Tensor.normalize(axis: axis, rank: rank)
        let (outer, n, inner) = split(around: a)
        return Tensor(shape: shape) { out in
            withUnsafeBufferPointer { p in
                for o in 0..<outer {
                    for i in 0..<inner {
                        let base = o * n * inner + i
                        var m = -Float.infinity
                        for k in 0..<n { m = Swift.max(m, p[base + k * inner]) }
                        var s: Float = 0
                        for k in 0..<n {
                            let e = Foundation.exp(p[base + k * inner] - m)
                            out[base + k * inner] = e
                            s += e
                        }
                        if log {
                            let ls = Foundation.log(s) + m
                            for k in 0..<n { out[base + k * inner] = p[base + k * inner] - ls }
                        } else {
                            let inv = 1 / s
                            for k in 0..<n { out[base + k * inner] *= inv }
                        }
                    }
                }
            }
        }
    }
}
