import CKernels
import CoachRandom
import XCTest

/// MiniRocket's pooling kernel (`coach_positive_values`, behind the action classifier's
/// random-convolution head): the count and mean of positive values of output − bias against a
/// plain loop in Double, and the same bits on every instruction set.
final class PositiveValuesTests: XCTestCase {
    /// Outputs with repeated values, so some biases equal an output exactly (excess 0: not positive).
    func problem(frames: Int, biasCount: Int, generator: inout SeededGenerator) -> (out: [Float], biases: [Float]) {
        let out = (0..<frames).map { _ in (generator.nextNormal() * 4).rounded() / 4 }
        let biases = (0..<biasCount).map { index -> Float in
            index % 3 == 0 ? out[generator.nextInt(in: 0...(frames - 1))] : generator.nextNormal()
        }
        return (out, biases)
    }

    func pooled(_ out: [Float], lower: Int, upper: Int, biases: [Float]) -> [Float] {
        var features = [Float](repeating: .nan, count: 2 * biases.count)
        coach_positive_values(out, Int32(lower), Int32(upper), biases, Int32(biases.count), 1 / Float(upper - lower), &features)
        return features
    }

    /// Bias counts around the kernel's blocks of 32 and 8 biases; pooling over all frames or
    /// only the middle ones (an unpadded combination).
    func testCountsAndMeansMatchAPlainLoopInDouble() {
        var generator = SeededGenerator(seed: 21)
        for biasCount in [1, 7, 8, 9, 31, 32, 33, 41, 70] {
            for (frames, lower, upper) in [(45, 0, 45), (45, 8, 37), (16, 0, 16), (3, 1, 2)] {
                let (out, biases) = problem(frames: frames, biasCount: biasCount, generator: &generator)
                let features = pooled(out, lower: lower, upper: upper, biases: biases)
                for (index, bias) in biases.enumerated() {
                    let excesses = out[lower..<upper].map { Double($0) - Double(bias) }.filter { $0 > 0 }
                    let proportion = Double(excesses.count) / Double(upper - lower)
                    let mean = excesses.isEmpty ? 0 : excesses.reduce(0, +) / Double(excesses.count)
                    let label = "\(biasCount) biases, frames \(lower)..<\(upper) of \(frames), bias \(index)"
                    XCTAssertEqual(Double(features[2 * index]), proportion, accuracy: 1e-6, label)
                    XCTAssertEqual(Double(features[2 * index + 1]), mean, accuracy: 1e-5 * max(1, mean), label)
                }
            }
        }
    }

    func testABiasAboveEveryOutputGivesZeroes() {
        let features = pooled([0.5, -1, 2], lower: 0, upper: 3, biases: [2, 5, 1, -2])
        XCTAssertEqual(features, [0, 0, 0, 0, 1 / 3 as Float, 1, 1, 2.5])
    }

    /// A lane whose output does not exceed its bias adds +0, so every lane runs the plain loop's
    /// additions in order: the same bits on every instruction set.
    func testSameBitsOnEveryInstructionSet() {
        var generator = SeededGenerator(seed: 22)
        for biasCount in [5, 8, 40, 64, 99] {
            let (out, biases) = problem(frames: 45, biasCount: biasCount, generator: &generator)
            XCTAssertEqual(coach_kernels_set_isa(0), 0)
            let portable = pooled(out, lower: 4, upper: 41, biases: biases)
            forEachInstructionSet { isa in
                XCTAssertEqual(pooled(out, lower: 4, upper: 41, biases: biases), portable, "isa \(isa), \(biasCount) biases")
            }
        }
    }
}
