/// Matrix products on variables.
extension Variable {
    /// The matrix product of two rank-2 variables.
    public static func matmul(_ a: Variable, _ b: Variable) -> Variable {
        let va = a.value, vb = b.value
        return a.tape.record(Tensor.matmul(va, vb), inputs: [a, b]) { g in
            [Tensor.matmul(g, vb, transposeB: true), Tensor.matmul(va, g, transposeA: true)]
        }
    }

    /// Batched matrix product [B, M, K] · [B, K, N] → [B, M, N]; either side may be rank 2
    /// (shared across the batch).
    public static func batchedMatmul(_ a: Variable, _ b: Variable) -> Variable {
        let va = a.value, vb = b.value
        return a.tape.record(Tensor.batchedMatmul(va, vb), inputs: [a, b]) { g in
            var ga = Tensor.batchedMatmul(g, vb, transposeB: true)
            var gb: Tensor
            if va.rank == 2 {
                ga = ga.sum(alongAxes: [0])
            }
            if vb.rank == 2 {
                // Σ_b A_bᵀ G_b = (A folded over rows)ᵀ · (G folded over rows)
                let m = va.rank == 3 ? va.shape[1] : va.shape[0]
                let k = vb.shape[0], n = vb.shape[1], batch = g.shape[0]
                let aFlat = va.rank == 3 ? va.reshaped(to: [batch * m, k]) : Tensor.concatenate(Array(repeating: va, count: batch), axis: 0)
                gb = Tensor.matmul(aFlat, g.reshaped(to: [batch * m, n]), transposeA: true)
            } else if va.rank == 2 {
                gb = Tensor.batchedMatmul(va.reshaped(to: [1] + va.shape).broadcast(to: [g.shape[0]] + va.shape), g, transposeA: true)
            } else {
                gb = Tensor.batchedMatmul(va, g, transposeA: true)
            }
            return [ga, gb]
        }
    }
}
