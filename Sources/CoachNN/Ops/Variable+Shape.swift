/// Shape operations on variables.
extension Variable {
    /// The same values under a new shape.
    public func reshaped(to shape: [Int]) -> Variable {
        let original = self.shape
        return tape.record(value.reshaped(to: shape), inputs: [self]) { g in [g.reshaped(to: original)] }
    }

    /// Axes reordered (result axis i is input axis `permutation[i]`).
    public func permuted(_ permutation: [Int]) -> Variable {
        var inverse = [Int](repeating: 0, count: permutation.count)
        for (i, p) in permutation.enumerated() { inverse[p] = i }
        return tape.record(value.permuted(permutation), inputs: [self]) { g in [g.permuted(inverse)] }
    }

    /// The last two axes swapped.
    public func transposed() -> Variable {
        var p = Array(0..<rank)
        p.swapAt(rank - 1, rank - 2)
        return permuted(p)
    }

    /// The sub-range `range` along `axis`.
    public func slice(axis: Int, _ range: Range<Int>) -> Variable {
        let a = Tensor.normalize(axis: axis, rank: rank)
        let extent = shape[a]
        return tape.record(value.slice(axis: a, range), inputs: [self]) { g in
            var padding = [(before: Int, after: Int)](repeating: (0, 0), count: g.rank)
            padding[a] = (range.lowerBound, extent - range.upperBound)
            return [g.padded(padding)]
        }
    }

    /// Variables joined along `axis`.
    public static func concatenate(_ parts: [Variable], axis: Int) -> Variable {
        precondition(!parts.isEmpty, "concatenate of no variables")
        let a = Tensor.normalize(axis: axis, rank: parts[0].rank)
        let extents = parts.map { $0.shape[a] }
        return parts[0].tape.record(Tensor.concatenate(parts.map(\.value), axis: a), inputs: parts) { g in
            var start = 0
            return extents.map { e in
                defer { start += e }
                return g.slice(axis: a, start..<(start + e))
            }
        }
    }

    /// Zero (or `value`) padding; `padding[i]` = (before, after) for axis i.
    public func padded(_ padding: [(before: Int, after: Int)], value fill: Float = 0) -> Variable {
        let original = shape
        return tape.record(value.padded(padding, value: fill), inputs: [self]) { g in
            var r = g
            for (axis, p) in padding.enumerated() where p.before > 0 || p.after > 0 {
                r = r.slice(axis: axis, p.before..<(p.before + original[axis]))
            }
            return [r]
        }
    }

    /// Rows of axis 0 picked by `indices` (gradients scatter-add back).
    public func gathering(rows indices: [Int]) -> Variable {
        let original = shape
        return tape.record(value.gathering(rows: indices), inputs: [self]) { g in
            var r = Tensor.zeros(original)
            let inner = g.count / Swift.max(indices.count, 1)
            r.withUnsafeMutableBufferPointer { pr in
                g.withUnsafeBufferPointer { pg in
                    for (k, i) in indices.enumerated() {
                        for j in 0..<inner { pr[i * inner + j] += pg[k * inner + j] }
                    }
                }
            }
            return [r]
        }
    }

    /// The value expanded to a broadcast-compatible shape.
    public func broadcast(to target: [Int]) -> Variable {
        let original = shape
        return tape.record(value.broadcast(to: target), inputs: [self]) { g in [g.summed(toShape: original)] }
    }
}
