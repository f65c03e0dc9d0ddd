import CoachModels
import CoachNN
import Foundation
import TestSupport
import XCTest

/// The fused kernels (batch norm, temporal convolutions) against numerical gradients and primitive-op references.
final class ActionClassifierKernelTests: XCTestCase {
    func random(_ shape: [Int], seed: UInt64, scale: Float = 1) -> Tensor {
        var generator = SeededGenerator(seed: seed)
        return Tensor.randomNormal(shape, standardDeviation: scale, using: &generator)
    }

    func testBatchNormalizationMatchesCoachNNAndItsGradientsAreRight() {
        let x = random([3, 4, 2, 5], seed: 1)
        let gamma = random([5], seed: 2), beta = random([5], seed: 3)
        // Forward against CoachNN.BatchNorm (training and, after the same update, inference).
        let reference = CompositeBatchNorm(featureCount: 5)
        reference.scale.value = gamma
        reference.offset.value = beta
        let mean = Parameter(Tensor.zeros([5]), kind: .buffer), variance = Parameter(Tensor.ones([5]), kind: .buffer)
        for mode in [ExecutionMode.training, .inference] {
            let tape = Tape(mode: mode, recordsGradients: false)
            let expected = reference(tape.constant(x)).value
            let actual = Variable.batchNormalized(tape.constant(x), scale: tape.constant(gamma), offset: tape.constant(beta),
                                                  runningMean: mean, runningVariance: variance, momentum: 0.1,
                                                  epsilon: 1e-3).value
            assertClose(actual.scalars, expected.scalars, absolute: 1e-5, "\(mode)")
            assertClose(mean.value.scalars, reference.runningMean.value.scalars, absolute: 1e-6, "running mean")
            assertClose(variance.value.scalars, reference.runningVariance.value.scalars, absolute: 1e-6, "running variance")
        }
        for activation in [NormalizationActivation.none, .relu, .swish] {
            for mode in [ExecutionMode.training, .inference] {
                // A small step with ReLU, so few outputs cross its kink.
                checkGradients([x, gamma, beta], epsilon: activation == .relu ? 2e-3 : 1e-2, tolerance: 2e-2, mode: mode) { v in
                    Variable.batchNormalized(v[0], scale: v[1], offset: v[2], runningMean: Parameter(Tensor.zeros([5]), kind: .buffer),
                                             runningVariance: Parameter(Tensor(shape: [5], scalars: [1, 2, 0.5, 1, 3]), kind: .buffer),
                                             momentum: 0.1, epsilon: 1e-3, activation: activation)
                }
            }
        }
        // With ReLU (swish) the output is the ReLU (swish) of the plain output.
        let tape = Tape(mode: .training, recordsGradients: false)
        func run(_ activation: NormalizationActivation) -> Tensor {
            Variable.batchNormalized(tape.constant(x), scale: tape.constant(gamma), offset: tape.constant(beta),
                                     runningMean: Parameter(Tensor.zeros([5]), kind: .buffer),
                                     runningVariance: Parameter(Tensor.ones([5]), kind: .buffer),
                                     momentum: 0.1, epsilon: 1e-3, activation: activation).value
        }
        XCTAssertEqual(run(.relu).scalars, run(.none).scalars.map { max($0, 0) })
        assertClose(run(.swish).scalars, run(.none).scalars.map { $0 / (1 + Foundation.exp(-$0)) }, absolute: 1e-6)
    }

    /// The vectorised paths (channels a multiple of 8) against batch norm written with primitive ops.
    func testBatchNormalizationGradientsMatchCoachNNForWideChannels() {
        // The last four are large enough to run in parallel row chunks, each of several row blocks
        // (one with channels not a multiple of 8).
        for (shape, activation) in [([4, 6, 3, 16], NormalizationActivation.none), ([4, 6, 3, 16], .relu), ([4, 6, 3, 24], .relu),
                                    ([4, 6, 3, 7], .relu), ([4, 6, 3, 8], .swish), ([8, 45, 18, 16], .relu),
                                    ([8, 45, 18, 12], .relu), ([6, 40, 10, 32], .none), ([6, 40, 10, 32], .swish)] {
            let channels = shape[3]
            let x = random(shape, seed: UInt64(channels)), upstream = random(shape, seed: 77)
            let gamma = random([channels], seed: 5), beta = random([channels], seed: 6)
            let reference = CompositeBatchNorm(featureCount: channels)
            reference.scale.value = gamma
            reference.offset.value = beta
            let referenceTape = Tape(mode: .training)
            let referenceInput = referenceTape.variable(x)
            var referenceOutput = reference(referenceInput)
            if activation == .relu { referenceOutput = referenceOutput.relu() }
            if activation == .swish { referenceOutput = referenceOutput.swish() }
            let referenceGradients = referenceTape.gradients(of: (referenceOutput * upstream).sum())

            let tape = Tape(mode: .training)
            let input = tape.variable(x), scale = tape.variable(gamma), offset = tape.variable(beta)
            let output = Variable.batchNormalized(input, scale: scale, offset: offset,
                                                  runningMean: Parameter(Tensor.zeros([channels]), kind: .buffer),
                                                  runningVariance: Parameter(Tensor.ones([channels]), kind: .buffer),
                                                  momentum: 0.1, epsilon: 1e-3, activation: activation)
            let gradients = tape.gradients(of: (output * upstream).sum())
            assertClose(output.value.scalars, referenceOutput.value.scalars, absolute: 1e-5, "forward, \(channels) channels")
            assertClose(gradients[input].scalars, referenceGradients[referenceInput].scalars, absolute: 1e-4, "dx, \(channels)")
            assertClose(gradients[scale].scalars, referenceGradients[reference.scale]!.scalars, absolute: 1e-3, "dγ, \(channels)")
            assertClose(gradients[offset].scalars, referenceGradients[reference.offset]!.scalars, absolute: 1e-3, "dβ, \(channels)")
        }
    }

    func testTemporalConvolutionMatchesConv2DWithAKx1Filter() {
        for (t, k, stride) in [(7, 3, 1), (8, 5, 2), (9, 1, 2), (4, 9, 1), (6, 4, 3)] {
            let x = random([2, t, 3, 4], seed: UInt64(t * 10 + k)), w = random([k, 4, 5], seed: UInt64(k))
            let tape = Tape(mode: .inference, recordsGradients: false)
            let actual = Variable.temporalConvolution(tape.constant(x), filter: tape.constant(w), stride: stride).value
            let expected = Tensor.conv2D(x, filter: w.reshaped(to: [k, 1, 4, 5]), stride: (stride, 1), padding: .same)
            XCTAssertEqual(actual.shape, expected.shape, "T \(t) k \(k) stride \(stride)")
            assertClose(actual.scalars, expected.scalars, absolute: 1e-4, "T \(t) k \(k) stride \(stride)")
            checkGradients([x, w], epsilon: 1e-2, tolerance: 1e-2) { v in
                Variable.temporalConvolution(v[0], filter: v[1], stride: stride)
            }
        }
    }

    func testDepthwiseTemporalConvolutionMatchesDepthwiseConv2D() {
        // The last case is large enough to run in parallel chunks of sequences.
        for (t, k, stride, c, n) in [(7, 3, 1, 4, 2), (8, 5, 2, 4, 2), (5, 9, 1, 4, 2), (6, 1, 1, 4, 2), (7, 3, 2, 19, 2),
                                     (45, 9, 1, 48, 16)] {
            let x = random([n, t, 3, c], seed: UInt64(t + k)), w = random([k, c], seed: UInt64(100 + k))
            let tape = Tape(mode: .inference, recordsGradients: false)
            let actual = Variable.depthwiseTemporalConvolution(tape.constant(x), filter: tape.constant(w), stride: stride).value
            let expected = Tensor.depthwiseConv2D(x, filter: w.reshaped(to: [k, 1, c]), stride: (stride, 1), padding: .same)
            XCTAssertEqual(actual.shape, expected.shape)
            assertClose(actual.scalars, expected.scalars, absolute: 1e-4, "T \(t) k \(k) stride \(stride)")
            checkGradients([x, w], epsilon: 1e-2, tolerance: 1e-2) { v in
                Variable.depthwiseTemporalConvolution(v[0], filter: v[1], stride: stride)
            }
        }
    }

    /// The joint mixing against the same sums as one GEMM with the joints moved outside the frames
    /// (the graph block's former formulation, in primitive ops), forward and both gradients, and
    /// against numerical gradients.
    func testJointMixingMatchesOneProductOfPermutedJointsAndItsGradientsAreRight() {
        for (m, j, p, c) in [(6, 5, 3, 4), (40, 18, 3, 16), (12, 18, 3, 3), (9, 7, 2, 9)] {
            let x = random([m, j, c], seed: UInt64(c)), a = random([j * p, j], seed: 9)
            let upstream = random([m, j * p, c], seed: 10)
            let referenceTape = Tape(mode: .training)
            let rx = referenceTape.variable(x), ra = referenceTape.variable(a)
            let columns = rx.permuted([1, 0, 2]).reshaped(to: [j, m * c])
            let reference = Variable.matmul(ra, columns).reshaped(to: [j * p, m, c]).permuted([1, 0, 2])
            let referenceGradients = referenceTape.gradients(of: (reference * upstream).sum())

            let tape = Tape(mode: .training)
            let vx = tape.variable(x), va = tape.variable(a)
            let mixed = Variable.jointMixing(vx, adjacency: va)
            let gradients = tape.gradients(of: (mixed * upstream).sum())
            assertClose(mixed.value.scalars, reference.value.scalars, absolute: 1e-5, "forward \(m)×\(j)×\(p)×\(c)")
            assertClose(gradients[vx].scalars, referenceGradients[rx].scalars, absolute: 1e-4, "input gradient")
            assertClose(gradients[va].scalars, referenceGradients[ra].scalars, absolute: 1e-3, "adjacency gradient")
        }
        checkGradients([random([5, 4, 3], seed: 1), random([8, 4], seed: 2)], epsilon: 1e-2, tolerance: 1e-2) { v in
            Variable.jointMixing(v[0], adjacency: v[1])
        }
    }
}
