import CoachTensor
import TestSupport
import XCTest

/// Copies and pure element-by-element operations on tensors large enough to be cut into blocks
/// for the compute threads (`forEachBlock`) give, on any number of threads, exactly what their
/// definitions give element by element.
final class ParallelElementwiseTests: XCTestCase {
    /// The flat input index of every output element of `shape` read through `strides`.
    private func sourceIndex(_ flat: Int, shape: [Int], strides: [Int]) -> Int {
        var remainder = flat, index = 0
        for axis in stride(from: shape.count - 1, through: 0, by: -1) {
            index += (remainder % shape[axis]) * strides[axis]
            remainder /= shape[axis]
        }
        return index
    }

    func testLargePermutesAndBroadcastsMatchTheIndexDefinition() {
        var generator = SeededGenerator(seed: 3)
        // 133,650 elements: five blocks, each starting inside the outer axes.
        let shape = [5, 45, 18, 33]
        let t = Tensor.randomNormal(shape, using: &generator)
        let strides = [45 * 18 * 33, 18 * 33, 33, 1]
        XCTAssertGreaterThan(t.count, 4 * elementwiseBlockSize)
        forEachThreadCount { threads in
            // The last case reads its rows with a stride (the innermost axis moves).
            for permutation in [[2, 0, 1, 3], [1, 0, 3, 2], [3, 2, 1, 0]] {
                let p = t.permuted(permutation)
                let outShape = permutation.map { shape[$0] }
                XCTAssertEqual(p.shape, outShape)
                let mismatches = (0..<p.count).filter {
                    p.scalars[$0] != t.scalars[sourceIndex($0, shape: outShape, strides: permutation.map { strides[$0] })]
                }
                XCTAssertEqual(mismatches.count, 0, "permutation \(permutation), \(threads) threads: first at \(mismatches.first ?? -1)")
            }
            let row = Tensor.randomNormal([45, 1, 33], using: &generator)
            let wide = row.broadcast(to: shape)
            let mismatches = (0..<wide.count).filter {
                wide.scalars[$0] != row.scalars[sourceIndex($0, shape: shape, strides: [0, 33, 0, 1])]
            }
            XCTAssertEqual(mismatches.count, 0, "broadcast, \(threads) threads")
        }
    }

    func testLargeArithmeticAndReLUMatchTheirDefinitions() {
        var generator = SeededGenerator(seed: 4)
        let a = Tensor.randomNormal([3, 50_001], standardDeviation: 4, using: &generator)
        let b = Tensor.randomNormal([3, 50_001], using: &generator)
        XCTAssertGreaterThan(a.count, 4 * elementwiseBlockSize)
        let cases: [(name: String, compute: () -> Tensor, definition: (Int) -> Float)] = [
            ("+", { a + b }, { a.scalars[$0] + b.scalars[$0] }),
            ("-", { a - b }, { a.scalars[$0] - b.scalars[$0] }),
            ("*", { a * b }, { a.scalars[$0] * b.scalars[$0] }),
            ("/", { a / b }, { a.scalars[$0] / b.scalars[$0] }),
            ("relu", { a.relu() }, { max(a.scalars[$0], 0) }),
            ("relu6", { a.relu6() }, { min(max(a.scalars[$0], 0), 6) }),
        ]
        forEachThreadCount { threads in
            for (name, compute, definition) in cases {
                let result = compute()
                XCTAssertEqual(result.shape, a.shape)
                let mismatches = (0..<a.count).filter { result.scalars[$0].bitPattern != definition($0).bitPattern }
                XCTAssertEqual(mismatches.count, 0, "\(name), \(threads) threads")
            }
        }
    }
}
