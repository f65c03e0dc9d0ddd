import CoachNN
import TestSupport
import XCTest

/// Layers on tensors large enough for their element-by-element passes to be cut into blocks for
/// the compute threads: on any number of threads they give what their definitions give.
final class LargeTensorGradientTests: XCTestCase {
    func testReLUPassesTheGradientWhereItsInputIsPositive() {
        var generator = SeededGenerator(seed: 5)
        let x = Tensor.randomNormal([4, 40_000], using: &generator)
        let g = Tensor.randomNormal([4, 40_000], using: &generator)
        forEachThreadCount { threads in
            let tape = Tape()
            let input = tape.variable(x)
            let gradient = tape.gradients(of: input.relu(), seed: g)[input]
            let mismatches = (0..<x.count).filter { gradient.scalars[$0] != (x.scalars[$0] > 0 ? g.scalars[$0] : 0) }
            XCTAssertEqual(mismatches.count, 0, "\(threads) threads")
        }
    }

    /// Batch norm with its ReLU fused masks the gradient itself; batch norm followed by a separate
    /// ReLU goes through `Variable.relu`. Both must give the same input gradient.
    func testFusedBatchNormReLUGradientIsBatchNormThenReLU() {
        var generator = SeededGenerator(seed: 6)
        let x = Tensor.randomNormal([4096, 32], mean: 0.3, standardDeviation: 2, using: &generator)
        let g = Tensor.randomNormal([4096, 32], using: &generator)
        forEachThreadCount { threads in
            let fusedTape = Tape(), separateTape = Tape()
            let fusedInput = fusedTape.variable(x), separateInput = separateTape.variable(x)
            let fused = BatchNorm(featureCount: 32, relu: true)(fusedInput)
            let separate = BatchNorm(featureCount: 32)(separateInput).relu()
            XCTAssertEqual(fused.value, separate.value, "\(threads) threads: forward")
            let a = fusedTape.gradients(of: fused, seed: g)[fusedInput]
            let b = separateTape.gradients(of: separate, seed: g)[separateInput]
            let mismatches = (0..<x.count).filter { a.scalars[$0] != b.scalars[$0] }
            XCTAssertEqual(mismatches.count, 0, "\(threads) threads: gradient")
            XCTAssertTrue(fused.value.scalars.contains { $0 == 0 } && fused.value.scalars.contains { $0 > 0 },
                          "the ReLU must cut some outputs and pass others")
        }
    }

    /// Dropout keeps element i when the tape generator's i-th uniform draw is below 1 − rate,
    /// scales it by 1 / (1 − rate), and leaves the tape's generator past the draws it used.
    func testDropoutDrawsOneUniformPerElementInOrder() {
        var generator = SeededGenerator(seed: 8)
        let x = Tensor.randomNormal([3, 30_000], using: &generator)
        let rate: Float = 0.3, keep: Float = 0.7
        let tape = Tape(mode: .training, generator: SeededGenerator(seed: 99))
        let y = Dropout(rate: rate)(tape.constant(x)).value
        var reference = SeededGenerator(seed: 99)
        var mismatches = 0
        for i in 0..<x.count {
            let expected = x.scalars[i] * (reference.nextUniform() < keep ? 1 / keep : 0)
            if y.scalars[i] != expected { mismatches += 1 }
        }
        XCTAssertEqual(mismatches, 0)
        XCTAssertEqual(tape.generator.next(), reference.next(), "the tape's generator continues after the mask's draws")
    }

    /// Dropout tests the integer draw against a bound instead of converting it to a float: the
    /// two tests agree on the draws next to the bound, where an off-by-one would show, for keep
    /// fractions whose bound is a whole number (1/2, 3/4) and ones whose bound is not.
    func testDropoutsIntegerBoundKeepsTheDrawsTheUniformComparisonKeeps() {
        for keep: Float in [0.5, 0.75, 0.7, 0.8, 0.9, 0.95, 1.0 / 3, 0.999] {
            let bound = Dropout.threshold(keeping: keep)
            for draw in (bound - 3)...(bound + 3) {
                XCTAssertEqual(draw < bound, Float(draw) * 0x1p-24 < keep, "keep \(keep), draw \(draw), bound \(bound)")
            }
        }
    }
}
