import CoachNN
import Foundation

extension Variable {
    /// `input · weight` for a constant input [M, K] (frozen features) and a weight [K, N]:
    /// only the weight gets a gradient, `inputᵀ · g`, so no work is spent on the input's.
    static func constantProduct(_ input: Tensor, _ weight: Variable) -> Variable {
        precondition(input.rank == 2 && weight.rank == 2 && input.shape[1] == weight.shape[0],
                     "constantProduct: \(input.shape) · \(weight.shape)")
        return weight.tape.record(Tensor.matmul(input, weight.value), inputs: [weight]) { g in
            [Tensor.matmul(input, g, transposeA: true)]
        }
    }

    /// Nearest-neighbour upsampling of [N, h, w, C] by 2 in each spatial axis → [N, 2h, 2w, C];
    /// the gradient sums each 2×2 block back.
    func upsampledTwice() -> Variable {
        let s = shape
        precondition(s.count == 4, "upsampling needs [N, H, W, C], got \(s)")
        let (n, h, w, c) = (s[0], s[1], s[2], s[3])
        let x = value
        let y = Tensor(shape: [n, 2 * h, 2 * w, c]) { out in
            x.withUnsafeBufferPointer { px in
                for b in 0..<n {
                    for row in 0..<(2 * h) {
                        for column in 0..<(2 * w) {
                            let source = px.baseAddress! + ((b * h + row / 2) * w + column / 2) * c
                            (out.baseAddress! + ((b * 2 * h + row) * 2 * w + column) * c).update(from: source, count: c)
                        }
                    }
                }
            }
        }
        return tape.record(y, inputs: [self]) { g in
            [Tensor(shape: [n, h, w, c]) { out in
                out.update(repeating: 0)
                g.withUnsafeBufferPointer { pg in
                    for b in 0..<n {
                        for row in 0..<(2 * h) {
                            for column in 0..<(2 * w) {
                                let source = pg.baseAddress! + ((b * 2 * h + row) * 2 * w + column) * c
                                let target = out.baseAddress! + ((b * h + row / 2) * w + column / 2) * c
                                for q in 0..<c { target[q] += source[q] }
                            }
                        }
                    }
                }
            }]
        }
    }
}
