/// Shape manipulation: reshape, permute, slice, concatenate, pad.
extension Tensor {
    /// The same elements under a new shape; one extent may be -1 (inferred).
    public func reshaped(to newShape: [Int]) -> Tensor {
        var target = newShape
        if let inferred = target.firstIndex(of: -1) {
            let known = target.enumerated().filter { $0.offset != inferred }.map(\.element).reduce(1, *)
            precondition(known > 0 && count % known == 0, "cannot reshape \(shape) to \(newShape)")
            target[inferred] = count / known
        }
        precondition(Tensor.count(of: target) == count, "cannot reshape \(shape) to \(newShape)")
        var t = self
        t.shape = target
        return t
    }

    /// Axes reordered: result axis i is input axis `permutation[i]`.
    public func permuted(_ permutation: [Int]) -> Tensor {
        precondition(permutation.count == rank && Set(permutation) == Set(0..<rank),
                     "bad permutation \(permutation) for rank \(rank)")
        if permutation == Array(0..<rank) { return self }
        let outShape = permutation.map { shape[$0] }
        let inStrides = Tensor.strides(of: shape)
        let permStrides = permutation.map { inStrides[$0] }
        return Tensor(shape: outShape) { out in
            scalars.withUnsafeBufferPointer { src in
                Tensor.gather(shape: outShape, strides: permStrides, base: 0, source: src, into: out)
            }
        }
    }

    /// Copies the strided view (`shape`, `strides`, `base`) of `source` into `out`, row-major.
    static func gather(shape: [Int], strides: [Int], base: Int,
                       source: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>) {
        let rank = shape.count
        if rank == 0 { if out.count > 0 { out[0] = source[base] }; return }
        if out.isEmpty { return }
        let innerCount = shape[rank - 1]
        let rows = out.count / innerCount
        // Large copies are split into blocks of whole rows, one per job: a copy is the same bits
        // on any number of threads.
        let rowsPerBlock = Swift.max(1, elementwiseBlockSize / innerCount)
        let blocks = (rows + rowsPerBlock - 1) / rowsPerBlock
        parallelFor(blocks) { block in
            let first = block * rowsPerBlock
            gatherRows(first..<Swift.min(first + rowsPerBlock, rows), shape: shape, strides: strides, base: base,
                       source: source, into: out)
        }
    }

    /// Rows `range` (rows of the last axis, in row-major order) of `gather`'s copy.
    private static func gatherRows(_ range: Range<Int>, shape: [Int], strides: [Int], base: Int,
                                   source: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>) {
        let rank = shape.count
        let innerCount = shape[rank - 1]
        let innerStride = strides[rank - 1]
        // The outer index of the first row, and its offset in the source.
        var index = [Int](repeating: 0, count: rank)
        var offset = base
        var remainder = range.lowerBound
        for axis in stride(from: rank - 2, through: 0, by: -1) {
            index[axis] = remainder % shape[axis]
            remainder /= shape[axis]
            offset += index[axis] * strides[axis]
        }
        guard let sourceBase = source.baseAddress, let outBase = out.baseAddress else { return }
        var o = range.lowerBound * innerCount
        for _ in range {
            if innerStride == 1 {
                (outBase + o).update(from: sourceBase + offset, count: innerCount)
            } else {
                var s = offset
                for j in 0..<innerCount { outBase[o + j] = sourceBase[s]; s += innerStride }
            }
            o += innerCount
            // advance the outer index
            var axis = rank - 2
            while axis >= 0 {
                index[axis] += 1
                offset += strides[axis]
                if index[axis] < shape[axis] { break }
                offset -= strides[axis] * shape[axis]
                index[axis] = 0
                axis -= 1
            }
        }
    }

    /// The matrix transpose of a rank-2 tensor, or swaps the last two axes.
    public func transposed() -> Tensor {
        precondition(rank >= 2, "transposed() needs rank ≥ 2, got \(shape)")
        var p = Array(0..<rank)
        p.swapAt(rank - 1, rank - 2)
        return permuted(p)
    }

    /// The sub-tensor `range` along `axis` (other axes whole).
    public func slice(axis: Int, _ range: Range<Int>) -> Tensor {
        let a = Tensor.normalize(axis: axis, rank: rank)
        precondition(range.lowerBound >= 0 && range.upperBound <= shape[a],
                     "slice \(range) out of bounds for axis \(a) of \(shape)")
        let outer = shape[..<a].reduce(1, *)
        let inner = shape[(a + 1)...].reduce(1, *)
        var outShape = shape
        outShape[a] = range.count
        let n = shape[a]
        return Tensor(shape: outShape) { out in
            scalars.withUnsafeBufferPointer { src in
                let block = range.count * inner
                for o in 0..<outer {
                    let from = (o * n + range.lowerBound) * inner
                    for j in 0..<block { out[o * block + j] = src[from + j] }
                }
            }
        }
    }

    /// Tensors joined along `axis`; all other extents must agree.
    public static func concatenate(_ tensors: [Tensor], axis: Int) -> Tensor {
        precondition(!tensors.isEmpty, "concatenate of no tensors")
        let first = tensors[0]
        let a = Tensor.normalize(axis: axis, rank: first.rank)
        for t in tensors {
            precondition(t.rank == first.rank, "concatenate rank mismatch")
            for i in 0..<first.rank where i != a {
                precondition(t.shape[i] == first.shape[i],
                             "concatenate shapes \(first.shape) and \(t.shape) differ off axis \(a)")
            }
        }
        var outShape = first.shape
        outShape[a] = tensors.map { $0.shape[a] }.reduce(0, +)
        let outer = first.shape[..<a].reduce(1, *)
        let inner = first.shape[(a + 1)...].reduce(1, *)
        let outRow = outShape[a] * inner
        return Tensor(shape: outShape) { out in
            var offset = 0
            for t in tensors {
                let block = t.shape[a] * inner
                t.scalars.withUnsafeBufferPointer { src in
                    for o in 0..<outer {
                        for j in 0..<block { out[o * outRow + offset + j] = src[o * block + j] }
                    }
                }
                offset += block
            }
        }
    }

    /// Tensors stacked along a new leading axis.
    public static func stack(_ tensors: [Tensor]) -> Tensor {
        precondition(!tensors.isEmpty, "stack of no tensors")
        let shape = tensors[0].shape
        precondition(tensors.allSatisfy { $0.shape == shape }, "stack needs equal shapes")
        var all = [Float]()
        all.reserveCapacity(shape.reduce(1, *) * tensors.count)
        for t in tensors { all.append(contentsOf: t.scalars) }
        return Tensor(shape: [tensors.count] + shape, scalars: all)
    }

    /// The tensor padded with `value`: `padding[i]` = (before, after) for axis i.
    public func padded(_ padding: [(before: Int, after: Int)], value: Float = 0) -> Tensor {
        precondition(padding.count == rank, "padding needs one pair per axis")
        precondition(padding.allSatisfy { $0.before >= 0 && $0.after >= 0 }, "negative padding")
        let outShape = Swift.zip(shape, padding).map { $0 + $1.before + $1.after }
        var out = Tensor(repeating: value, shape: outShape)
        if count == 0 { return out }
        let outStrides = Tensor.strides(of: outShape)
        let base = Swift.zip(padding, outStrides).map { $0.before * $1 }.reduce(0, +)
        out.withUnsafeMutableBufferPointer { dst in
            scalars.withUnsafeBufferPointer { src in
                Tensor.scatter(shape: shape, strides: outStrides, base: base, source: src, into: dst)
            }
        }
        return out
    }

    /// Copies row-major `source` (of `shape`) into the strided view (`strides`, `base`) of `out`.
    static func scatter(shape: [Int], strides: [Int], base: Int,
                        source: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>) {
        let rank = shape.count
        if rank == 0 { out[base] = source[0]; return }
        if source.isEmpty { return }
        let innerCount = shape[rank - 1]
        let innerStride = strides[rank - 1]
        var index = [Int](repeating: 0, count: rank)
        var offset = base
        var i = 0
        for _ in 0..<(source.count / innerCount) {
            var d = offset
            for j in 0..<innerCount { out[d] = source[i + j]; d += innerStride }
            i += innerCount
            var axis = rank - 2
            while axis >= 0 {
                index[axis] += 1
                offset += strides[axis]
                if index[axis] < shape[axis] { break }
                offset -= strides[axis] * shape[axis]
                index[axis] = 0
                axis -= 1
            }
        }
    }

    /// Elements picked along axis 0 by `indices` (e.g. rows of a batch).
    public func gathering(rows indices: [Int]) -> Tensor {
        precondition(rank >= 1, "gathering(rows:) on a scalar")
        let inner = count / Swift.max(shape[0], 1)
        var outShape = shape
        outShape[0] = indices.count
        return Tensor(shape: outShape) { out in
            scalars.withUnsafeBufferPointer { src in
                for (r, i) in indices.enumerated() {
                    precondition(i >= 0 && i < shape[0], "row \(i) out of range \(shape[0])")
                    for j in 0..<inner { out[r * inner + j] = src[i * inner + j] }
                }
            }
        }
    }
}

extension Tensor {
    /// The rows `indices` (in that order, repeats allowed) of a [N, D] matrix, as [indices.count, D].
    public func rows(_ indices: [Int]) -> Tensor {
        precondition(shape.count == 2, "rows(_:) needs a matrix, not shape \(shape)")
        let width = shape[1]
        return Tensor(shape: [indices.count, width]) { out in
            withUnsafeBufferPointer { values in
                for (row, index) in indices.enumerated() {
                    precondition(index >= 0 && index < shape[0], "row \(index) is outside 0..<\(shape[0])")
                    for column in 0..<width { out[row * width + column] = values[index * width + column] }
                }
            }
        }
    }
}
