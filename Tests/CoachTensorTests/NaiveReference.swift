import CoachTensor

/// Straightforward loop implementations used as independent references.
enum Naive {
    static func pads(_ size: Int, _ k: Int, _ s: Int, _ padding: Padding, vertical: Bool) -> (Int, Int) {
        switch padding {
        case .valid: return (0, 0)
        case .same:
            let out = (size + s - 1) / s
            let total = max((out - 1) * s + k - size, 0)
            return (total / 2, total - total / 2)
        case let .explicit(t, b, l, r): return vertical ? (t, b) : (l, r)
        }
    }

    /// Direct convolution: out[n,oy,ox,o] = Σ in[n, oy·s−pt+ky, ox·s−pl+kx, i]·w[ky,kx,i,o].
    static func conv2D(_ x: Tensor, _ w: Tensor, stride: (Int, Int), padding: Padding) -> Tensor {
        let (N, H, W, C) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        let (KH, KW, O) = (w.shape[0], w.shape[1], w.shape[3])
        let (pt, pb) = pads(H, KH, stride.0, padding, vertical: true)
        let (pl, pr) = pads(W, KW, stride.1, padding, vertical: false)
        let OH = (H + pt + pb - KH) / stride.0 + 1, OW = (W + pl + pr - KW) / stride.1 + 1
        var out = Tensor.zeros([N, OH, OW, O])
        for n in 0..<N { for oy in 0..<OH { for ox in 0..<OW { for o in 0..<O {
            var s: Float = 0
            for ky in 0..<KH { for kx in 0..<KW {
                let iy = oy * stride.0 - pt + ky, ix = ox * stride.1 - pl + kx
                if iy < 0 || iy >= H || ix < 0 || ix >= W { continue }
                for i in 0..<C { s += x[n, iy, ix, i] * w[ky, kx, i, o] }
            } }
            out[n, oy, ox, o] = s
        } } } }
        return out
    }

    static func depthwise(_ x: Tensor, _ w: Tensor, stride: (Int, Int), padding: Padding) -> Tensor {
        let (N, H, W, C) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        let (KH, KW) = (w.shape[0], w.shape[1])
        let (pt, pb) = pads(H, KH, stride.0, padding, vertical: true)
        let (pl, pr) = pads(W, KW, stride.1, padding, vertical: false)
        let OH = (H + pt + pb - KH) / stride.0 + 1, OW = (W + pl + pr - KW) / stride.1 + 1
        var out = Tensor.zeros([N, OH, OW, C])
        for n in 0..<N { for oy in 0..<OH { for ox in 0..<OW { for c in 0..<C {
            var s: Float = 0
            for ky in 0..<KH { for kx in 0..<KW {
                let iy = oy * stride.0 - pt + ky, ix = ox * stride.1 - pl + kx
                if iy < 0 || iy >= H || ix < 0 || ix >= W { continue }
                s += x[n, iy, ix, c] * w[ky, kx, c]
            } }
            out[n, oy, ox, c] = s
        } } } }
        return out
    }

    /// Pooling; `max` picks the maximum, otherwise the mean of in-bounds elements.
    static func pool(_ x: Tensor, kernel: (Int, Int), stride: (Int, Int), padding: Padding, max useMax: Bool) -> Tensor {
        let (N, H, W, C) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        let (pt, pb) = pads(H, kernel.0, stride.0, padding, vertical: true)
        let (pl, pr) = pads(W, kernel.1, stride.1, padding, vertical: false)
        let OH = (H + pt + pb - kernel.0) / stride.0 + 1, OW = (W + pl + pr - kernel.1) / stride.1 + 1
        var out = Tensor.zeros([N, OH, OW, C])
        for n in 0..<N { for oy in 0..<OH { for ox in 0..<OW { for c in 0..<C {
            var values: [Float] = []
            for ky in 0..<kernel.0 { for kx in 0..<kernel.1 {
                let iy = oy * stride.0 - pt + ky, ix = ox * stride.1 - pl + kx
                if iy < 0 || iy >= H || ix < 0 || ix >= W { continue }
                values.append(x[n, iy, ix, c])
            } }
            out[n, oy, ox, c] = values.isEmpty ? 0 : (useMax ? values.max()! : values.reduce(0, +) / Float(values.count))
        } } } }
        return out
    }

    static func matmul(_ a: Tensor, _ b: Tensor) -> Tensor {
        let (m, k, n) = (a.shape[0], a.shape[1], b.shape[1])
        var out = Tensor.zeros([m, n])
        for i in 0..<m { for j in 0..<n {
            var s: Float = 0
            for p in 0..<k { s += a[i, p] * b[p, j] }
            out[i, j] = s
        } }
        return out
    }
}
