import CKernels

extension Tensor {
    /// A graph convolution's joint mixing, frame by frame: `x` [M, J, C] and `adjacency` [R, J] give
    /// [M, R, C] with out[m, r, :] = Σ_j adjacency[r, j] · x[m, j, :] (`coach_joint_mix`).
    ///
    /// As one GEMM the joints would first have to be moved outside the frames ([J, M·C]) and the
    /// product moved back, two copies of the activation each way; here each frame's product reads
    /// the frame where it lies and writes the layout the next layer reads. Every element is one chain
    /// of fused multiply-adds over j in order, so the result is the same bits for any thread count
    /// and instruction set.
    public static func jointMixing(_ x: Tensor, adjacency: Tensor) -> Tensor {
        precondition(x.rank == 3 && adjacency.rank == 2 && adjacency.shape[1] == x.shape[1],
                     "jointMixing needs [M, J, C] and [R, J], got \(x.shape) and \(adjacency.shape)")
        let m = x.shape[0], j = x.shape[1], c = x.shape[2], r = adjacency.shape[0]
        return Tensor(shape: [m, r, c]) { out in
            guard m > 0, r > 0, c > 0 else { return }
            guard j > 0 else { for i in 0..<out.count { out[i] = 0 }; return }
            x.withUnsafeBufferPointer { px in
                adjacency.withUnsafeBufferPointer { pa in
                    let pieces = jointMixingPieces(frames: m, work: m * r * j * c)
                    parallelFor(pieces) { piece in
                        let lower = piece * m / pieces, upper = (piece + 1) * m / pieces
                        coach_joint_mix(pa.baseAddress!, Int32(r), Int32(j), px.baseAddress!, Int32(c), lower, upper - lower,
                                        out.baseAddress!)
                    }
                }
            }
        }
    }

    /// The adjacency gradient of `jointMixing`: `upstream` [M, R, C] and `x` [M, J, C] give [R, J]
    /// with ga[r, j] = Σ_m Σ_c upstream[m, r, c] · x[m, j, c]. The frames are split into pieces fixed
    /// by the shape, each summed by `coach_joint_mix_adjacency_gradient`, and the pieces added in
    /// order: the same bits for any thread count and instruction set.
    public static func jointMixingAdjacencyGradient(_ upstream: Tensor, _ x: Tensor) -> Tensor {
        precondition(upstream.rank == 3 && x.rank == 3 && upstream.shape[0] == x.shape[0] && upstream.shape[2] == x.shape[2],
                     "jointMixingAdjacencyGradient needs [M, R, C] and [M, J, C], got \(upstream.shape) and \(x.shape)")
        let m = upstream.shape[0], r = upstream.shape[1], c = upstream.shape[2], j = x.shape[1]
        guard r > 0, j > 0 else { return Tensor.zeros([r, j]) }
        let pieces = jointMixingPieces(frames: m, work: m * r * j * c)
        var partial = [Float](repeating: 0, count: pieces * r * j)
        upstream.withUnsafeBufferPointer { pg in
            x.withUnsafeBufferPointer { px in
                partial.withUnsafeMutableBufferPointer { pp in
                    parallelFor(pieces) { piece in
                        let lower = piece * m / pieces, upper = (piece + 1) * m / pieces
                        let status = coach_joint_mix_adjacency_gradient(pg.baseAddress!, Int32(r), px.baseAddress!, Int32(j),
                                                                        Int32(c), lower, upper - lower,
                                                                        pp.baseAddress! + piece * r * j)
                        precondition(status == 0, "jointMixingAdjacencyGradient: out of memory")
                    }
                }
            }
        }
        var sums = [Float](repeating: 0, count: r * j)
        for piece in 0..<pieces { for e in 0..<(r * j) { sums[e] += partial[piece * r * j + e] } }
        return Tensor(shape: [r, j], scalars: sums)
    }

    /// Pieces of whole frames for the joint mixing: one below about a million multiply-adds, else up
    /// to 8, fixed by the shape alone.
    static func jointMixingPieces(frames: Int, work: Int) -> Int {
        guard work >= 1 << 20 else { return 1 }
        return Swift.max(1, Swift.min(8, frames))
    }
}
