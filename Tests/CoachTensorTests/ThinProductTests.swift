import CKernels
import CoachRandom
import CoachTensor
import TestSupport
import XCTest

/// The thin products behind the logistic regressions' solver (`Tensor.thinMatmul`,
/// `Tensor.thinMatmulTransposed`, `CKernels`' `coach_thin_gemm*`): against sums in Double, and the
/// same bits on every instruction set this machine has, for every thread count, and for the rows
/// given in one call or in blocks.
final class ThinProductTests: XCTestCase {
    /// Shapes around every edge of the kernels: rows not a multiple of 4, 8 or 64 (1 to 7 rows past
    /// the last tile of 8), columns of `a` not a multiple of 32, 16 or 8, and 1 to 27 thin columns
    /// (the AVX2 kernels take 16 and 6 at a time, the AVX-512 one 32 columns of `a`), a reduction
    /// over several of `a·b`'s blocks of 1,024 (the last one partial).
    let shapes: [(m: Int, k: Int, n: Int)] = [
        (1, 1, 1), (5, 17, 3), (67, 130, 4), (130, 33, 6), (9, 300, 7), (70, 50, 13), (3, 1000, 16),
        (4, 20, 17), (65, 31, 27), (200, 9, 2), (129, 1200, 5), (37, 2_500, 21), (23, 40, 8), (47, 70, 1),
    ]

    func random(_ count: Int, _ generator: inout SeededGenerator) -> Tensor {
        Tensor(shape: [count], scalars: (0..<count).map { _ in generator.nextNormal() })
    }

    func testThinProductsMatchSumsInDouble() {
        var generator = SeededGenerator(seed: 5)
        for (m, k, n) in shapes {
            let a = random(m * k, &generator).reshaped(to: [m, k])
            let b = random(k * n, &generator).reshaped(to: [k, n])
            let r = random(m * n, &generator).reshaped(to: [m, n])
            var product = [Float](repeating: 0, count: m * n), transposed = [Float](repeating: 0, count: k * n)
            for i in 0..<m {
                for j in 0..<n {
                    product[i * n + j] = Float((0..<k).reduce(0.0) { $0 + Double(a.scalars[i * k + $1]) * Double(b.scalars[$1 * n + j]) })
                }
            }
            for f in 0..<k {
                for j in 0..<n {
                    transposed[f * n + j] = Float((0..<m).reduce(0.0) { $0 + Double(a.scalars[$1 * k + f]) * Double(r.scalars[$1 * n + j]) })
                }
            }
            forEachInstructionSet { isa in
                let thin = Tensor.thinMatmul(a, b), thinTransposed = Tensor.thinMatmulTransposed(a, r)
                XCTAssertEqual(thin.shape, [m, n])
                XCTAssertEqual(thinTransposed.shape, [k, n])
                assertClose(thin.scalars, product, absolute: 2e-6 * Float(k), "isa \(isa) a·b \(m)×\(k)×\(n)")
                assertClose(thinTransposed.scalars, transposed, absolute: 2e-6 * Float(m), "isa \(isa) aᵀ·r \(m)×\(k)×\(n)")
            }
        }
    }

    /// Each element is one chain of fused multiply-adds in order, so the instruction set, the
    /// thread count and the blocks of rows the transposed product is fed in do not change a bit.
    func testSameBitsOnEveryInstructionSetThreadCountAndRowBlock() {
        var generator = SeededGenerator(seed: 8)
        let original = ComputeThreads.count
        defer { ComputeThreads.set(original) }
        for (m, k, n) in shapes + [(300, 4_100, 4)] {
            let a = random(m * k, &generator).reshaped(to: [m, k])
            let b = random(k * n, &generator).reshaped(to: [k, n])
            let r = random(m * n, &generator).reshaped(to: [m, n])
            ComputeThreads.set(1)
            XCTAssertEqual(coach_kernels_set_isa(0), 0)
            let product = Tensor.thinMatmul(a, b).scalars, transposed = Tensor.thinMatmulTransposed(a, r).scalars
            forEachInstructionSet { isa in
                for threads in [1, 2, 3] {
                    ComputeThreads.set(threads)
                    XCTAssertEqual(Tensor.thinMatmul(a, b).scalars, product, "isa \(isa), \(threads) threads, a·b \(m)×\(k)×\(n)")
                    XCTAssertEqual(Tensor.thinMatmulTransposed(a, r).scalars, transposed,
                                   "isa \(isa), \(threads) threads, aᵀ·r \(m)×\(k)×\(n)")
                }
                // The rows in two blocks (the second accumulating onto the first) and the columns in
                // two pieces give the bits of one call.
                var sums = [Float](repeating: 0, count: n * k)
                let split = m / 3, middle = k / 2
                a.withUnsafeBufferPointer { pa in
                    r.withUnsafeBufferPointer { pr in
                        for (first, rows) in [(0, split), (split, m - split)] {
                            for (column, count) in [(0, middle), (middle, k - middle)] {
                                coach_thin_gemm_tn_accumulate(pa.baseAddress! + first * k, Int32(rows), Int32(k),
                                                              pr.baseAddress! + first * n, Int32(n), &sums,
                                                              Int32(column), Int32(count))
                            }
                        }
                    }
                }
                let blocked = (0..<(k * n)).map { sums[($0 % n) * k + $0 / n] }
                XCTAssertEqual(blocked, transposed, "isa \(isa), rows in blocks, aᵀ·r \(m)×\(k)×\(n)")
                // The same through the Tensor functions that take a range of rows (the solver's
                // passes): rows of the product, and the transposed product accumulated range by range.
                var ranged = [Float](repeating: 0, count: n * k)
                var rangedProduct: [Float] = []
                for rows in [0..<split, split..<m] {
                    rangedProduct += Tensor.thinMatmul(a, rows: rows, b).scalars
                    let residuals = Array(r.scalars[(rows.lowerBound * n)..<(rows.upperBound * n)])
                    residuals.withUnsafeBufferPointer { pr in
                        guard let base = pr.baseAddress else { return }
                        Tensor.accumulateThinTransposed(a, rows: rows, base, columns: n, into: &ranged)
                    }
                }
                XCTAssertEqual(rangedProduct, product, "isa \(isa), rows in ranges, a·b \(m)×\(k)×\(n)")
                XCTAssertEqual((0..<(k * n)).map { ranged[($0 % n) * k + $0 / n] }, transposed,
                               "isa \(isa), rows in ranges, aᵀ·r \(m)×\(k)×\(n)")
            }
        }
    }
}
