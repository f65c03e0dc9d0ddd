import CKernels
import CoachRandom
import CoachTensor
import TestSupport
import XCTest

/// The graph convolution's joint mixing (`Tensor.jointMixing`, `Tensor.jointMixingAdjacencyGradient`,
/// `CKernels`' `coach_joint_mix*`): against sums in Double, and the same bits on every instruction set
/// this machine has and for every thread count.
final class JointMixingTests: XCTestCase {
    /// (frames, rows, joints, channels): channels below, at and past the kernels' 8- and 16-wide
    /// blocks (the input's 3 and 4 included), rows not a multiple of 4 or 8, and the action network's
    /// shapes (54 rows of 18 joints × 3 partitions, 16 and 32 channels), large enough to run in pieces.
    let shapes: [(m: Int, r: Int, j: Int, c: Int)] = [
        (1, 1, 1, 1), (3, 5, 2, 3), (4, 7, 3, 4), (5, 9, 4, 7), (2, 4, 5, 8), (6, 13, 6, 9), (3, 54, 18, 16),
        (7, 6, 5, 17), (2, 3, 4, 24), (5, 10, 7, 33), (300, 54, 18, 16), (200, 54, 18, 32), (150, 54, 18, 3),
    ]

    func random(_ shape: [Int], _ generator: inout SeededGenerator) -> Tensor {
        let count = shape.reduce(1, *)
        return Tensor(shape: shape, scalars: (0..<count).map { _ in generator.nextNormal() })
    }

    func testMixingAndItsAdjacencyGradientMatchSumsInDouble() {
        var generator = SeededGenerator(seed: 3)
        for (m, r, j, c) in shapes {
            let x = random([m, j, c], &generator), a = random([r, j], &generator), g = random([m, r, c], &generator)
            var mixed = [Float](repeating: 0, count: m * r * c), gradient = [Float](repeating: 0, count: r * j)
            for f in 0..<m {
                for row in 0..<r {
                    for ch in 0..<c {
                        mixed[(f * r + row) * c + ch] = Float((0..<j).reduce(0.0) {
                            $0 + Double(a.scalars[row * j + $1]) * Double(x.scalars[(f * j + $1) * c + ch])
                        })
                    }
                }
            }
            for row in 0..<r {
                for joint in 0..<j {
                    var sum = 0.0
                    for f in 0..<m {
                        for ch in 0..<c { sum += Double(g.scalars[(f * r + row) * c + ch]) * Double(x.scalars[(f * j + joint) * c + ch]) }
                    }
                    gradient[row * j + joint] = Float(sum)
                }
            }
            forEachInstructionSet { isa in
                let out = Tensor.jointMixing(x, adjacency: a), ga = Tensor.jointMixingAdjacencyGradient(g, x)
                XCTAssertEqual(out.shape, [m, r, c])
                XCTAssertEqual(ga.shape, [r, j])
                assertClose(out.scalars, mixed, absolute: 2e-6 * Float(j), "isa \(isa) mixing \(m)×\(r)×\(j)×\(c)")
                assertClose(ga.scalars, gradient, absolute: 2e-6 * Float(m * c), "isa \(isa) adjacency gradient \(m)×\(r)×\(j)×\(c)")
            }
        }
    }

    /// Each element is a chain of fused multiply-adds in a fixed order, and the gradient's pieces
    /// are fixed by the shape, so neither the instruction set nor the thread count changes a bit.
    func testSameBitsOnEveryInstructionSetAndThreadCount() {
        var generator = SeededGenerator(seed: 4)
        let original = ComputeThreads.count
        defer { ComputeThreads.set(original) }
        for (m, r, j, c) in shapes {
            let x = random([m, j, c], &generator), a = random([r, j], &generator), g = random([m, r, c], &generator)
            ComputeThreads.set(1)
            XCTAssertEqual(coach_kernels_set_isa(0), 0)
            let out = Tensor.jointMixing(x, adjacency: a).scalars, ga = Tensor.jointMixingAdjacencyGradient(g, x).scalars
            forEachInstructionSet { isa in
                for threads in [1, 2, 3] {
                    ComputeThreads.set(threads)
                    XCTAssertEqual(Tensor.jointMixing(x, adjacency: a).scalars, out,
                                   "isa \(isa), \(threads) threads, mixing \(m)×\(r)×\(j)×\(c)")
                    XCTAssertEqual(Tensor.jointMixingAdjacencyGradient(g, x).scalars, ga,
                                   "isa \(isa), \(threads) threads, adjacency gradient \(m)×\(r)×\(j)×\(c)")
                }
            }
        }
    }
}
