import Foundation
import XCTest
import CoachNN
import TestSupport

/// Central-difference gradient checks for every differentiable op and layer.
final class GradientCheckTests: XCTestCase {
    var generator = SeededGenerator(seed: 2024)

    func random(_ shape: [Int], scale: Float = 1) -> Tensor {
        Tensor.randomNormal(shape, standardDeviation: scale, using: &generator)
    }

    /// Values kept away from 0 (for division, log, sqrt).
    func positive(_ shape: [Int]) -> Tensor {
        Tensor.randomUniform(shape, lower: 0.5, upper: 2, using: &generator)
    }

    /// Random values at least 0.05 from every kink (where a piecewise op is not differentiable).
    func awayFromKinks(_ shape: [Int], scale: Float = 1, kinks: [Float] = [0]) -> Tensor {
        random(shape, scale: scale).map { x in
            var v = x
            for k in kinks where abs(v - k) < 0.05 { v = k + (v >= k ? 0.05 : -0.05) }
            return v
        }
    }

    /// Distinct values 0.1 apart in random order (no near-ties for max).
    func distinct(_ shape: [Int]) -> Tensor {
        let n = Tensor.count(of: shape)
        return Tensor(shape: shape, scalars: generator.shuffled((0..<n).map { Float($0) * 0.1 - Float(n) * 0.05 }))
    }

    func testArithmeticWithBroadcasting() {
        for (sa, sb) in [([3, 4], [3, 4]), ([2, 3, 4], [4]), ([2, 1, 4], [3, 1]), ([3, 4], []), ([1], [2, 3])] {
            checkGradients([random(sa), random(sb)]) { $0[0] + $0[1] }
            checkGradients([random(sa), random(sb)]) { $0[0] - $0[1] }
            checkGradients([random(sa), random(sb)]) { $0[0] * $0[1] }
            checkGradients([random(sa), positive(sb)]) { $0[0] / $0[1] }
        }
        checkGradients([random([3, 2])]) { 2 - $0[0] * 3 + 1 }
        checkGradients([random([3, 2])]) { -($0[0] / 4 - 1) }
    }

    /// An operand that needs no gradient (a constant such as a dropout mask or data) gets none,
    /// computed or accumulated, while the tracked operand's is exact, whichever side it is on.
    func testConstantOperandsGetNoGradient() {
        let x = random([3, 4]), c = positive([3, 4]), row = positive([4])
        let ops: [(String, (Variable, Variable) -> Variable, (Tensor, Tensor) -> Tensor)] = [
            ("x + c", { $0 + $1 }, { _, _ in Tensor.ones([3, 4]) }),
            ("x - c", { $0 - $1 }, { _, _ in Tensor.ones([3, 4]) }),
            ("c - x", { $1 - $0 }, { _, _ in Tensor.ones([3, 4]) * -1 }),
            ("x * c", { $0 * $1 }, { _, c in c.broadcast(to: [3, 4]) }),
            ("c * x", { $1 * $0 }, { _, c in c.broadcast(to: [3, 4]) }),
            ("x / c", { $0 / $1 }, { _, c in Tensor.ones([3, 4]) / c.broadcast(to: [3, 4]) }),
            ("c / x", { $1 / $0 }, { x, c in (c.broadcast(to: [3, 4]) / (x * x)) * -1 }),
        ]
        for constant in [c, row] {
            for (name, op, expected) in ops {
                let tape = Tape(mode: .training, generator: generator)
                let variable = tape.variable(x), fixed = tape.constant(constant)
                let gradients = tape.gradients(of: op(variable, fixed).sum())
                let want = expected(x, constant)
                for (got, wanted) in zip(gradients[variable].scalars, want.scalars) {
                    XCTAssertEqual(got, wanted, accuracy: 1e-5 * max(1, abs(wanted)), name)
                }
                XCTAssertEqual(gradients[fixed], Tensor.zeros(constant.shape), "\(name): the constant's gradient is none")
            }
        }
    }

    func testUnaryOps() {
        checkGradients([random([4, 5])]) { $0[0].exp() }
        checkGradients([positive([4, 5])]) { $0[0].log() }
        checkGradients([positive([4, 5])]) { $0[0].sqrt() }
        checkGradients([random([4, 5])]) { $0[0].squared() }
        checkGradients([awayFromKinks([4, 5])]) { $0[0].abs() }
        checkGradients([random([4, 5])]) { $0[0].tanh() }
        checkGradients([random([4, 5], scale: 3)]) { $0[0].sigmoid() }
        checkGradients([awayFromKinks([4, 5])]) { $0[0].relu() }
        checkGradients([awayFromKinks([4, 5], scale: 5, kinks: [0, 6])]) { $0[0].relu6() }
        checkGradients([awayFromKinks([4, 5], scale: 2, kinks: [-1, 1.5])]) { $0[0].clamped(to: -1, 1.5) }
        checkGradients([awayFromKinks([4, 5])]) { $0[0].leakyRelu(slope: 0.1) }
        checkGradients([random([4, 5])]) { $0[0].swish() }
        checkGradients([random([4, 5])]) { $0[0].gelu() }
    }

    func testShapeOps() {
        checkGradients([random([2, 3, 4])]) { $0[0].reshaped(to: [6, 4]) }
        checkGradients([random([2, 3, 4])]) { $0[0].permuted([2, 0, 1]) }
        checkGradients([random([3, 5])]) { $0[0].transposed() }
        checkGradients([random([4, 5, 2])]) { $0[0].slice(axis: 1, 1..<4) }
        checkGradients([random([2, 3]), random([2, 5])]) { Variable.concatenate($0, axis: 1) }
        checkGradients([random([2, 3]), random([1, 3])]) { Variable.concatenate($0, axis: 0) }
        checkGradients([random([2, 3])]) { $0[0].padded([(1, 2), (0, 1)], value: 0.5) }
        checkGradients([random([4, 3])]) { $0[0].gathering(rows: [3, 0, 3, 1]) }
        checkGradients([random([3, 1])]) { $0[0].broadcast(to: [2, 3, 4]) }
    }

    func testReductions() {
        checkGradients([random([3, 4])]) { $0[0].sum() }
        checkGradients([random([3, 4])]) { $0[0].mean() }
        checkGradients([random([2, 3, 4])]) { $0[0].sum(alongAxes: [0, 2]) }
        checkGradients([random([2, 3, 4])]) { $0[0].mean(alongAxes: [1], keepingDimensions: true) }
        checkGradients([distinct([2, 3, 4])]) { $0[0].max(alongAxes: [2]) }
        checkGradients([distinct([2, 3, 4])]) { $0[0].max(alongAxes: [0, 1], keepingDimensions: true) }
        checkGradients([random([3, 5], scale: 2)]) { $0[0].softmax(axis: -1) }
        checkGradients([random([3, 5], scale: 2)]) { $0[0].softmax(axis: 0) }
        checkGradients([random([3, 5], scale: 2)]) { $0[0].logSoftmax(axis: -1) }
    }

    func testMatmul() {
        checkGradients([random([3, 4]), random([4, 5])]) { Variable.matmul($0[0], $0[1]) }
        checkGradients([random([2, 3, 4]), random([2, 4, 5])]) { Variable.batchedMatmul($0[0], $0[1]) }
        checkGradients([random([2, 3, 4]), random([4, 5])]) { Variable.batchedMatmul($0[0], $0[1]) }
        checkGradients([random([3, 4]), random([2, 4, 5])]) { Variable.batchedMatmul($0[0], $0[1]) }
    }

    func testConvolutionsAndPooling() {
        let cases: [(Int, Int, Padding)] = [(3, 1, .same), (3, 2, .same), (5, 2, .same), (1, 1, .valid),
                                            (1, 2, .valid), (3, 2, .explicit(top: 0, bottom: 2, left: 1, right: 0))]
        for (k, s, padding) in cases {
            checkGradients([random([2, 6, 5, 3]), random([k, k, 3, 4])]) {
                Variable.conv2D($0[0], filter: $0[1], stride: (s, s), padding: padding)
            }
            checkGradients([random([2, 6, 5, 3]), random([k, k, 3])]) {
                Variable.depthwiseConv2D($0[0], filter: $0[1], stride: (s, s), padding: padding)
            }
        }
        checkGradients([random([2, 9, 3]), random([3, 3, 4])]) { Variable.conv1D($0[0], filter: $0[1], padding: .same) }
        checkGradients([random([2, 9, 3]), random([3, 3, 4])]) { Variable.conv1D($0[0], filter: $0[1], stride: 2, padding: .valid) }
        for (k, s, padding) in [(2, 2, Padding.valid), (3, 2, .same), (3, 1, .symmetric(1))] {
            checkGradients([random([2, 5, 6, 3])]) { Variable.averagePool2D($0[0], kernel: (k, k), stride: (s, s), padding: padding) }
            checkGradients([distinct([2, 5, 6, 3])]) { Variable.maxPool2D($0[0], kernel: (k, k), stride: (s, s), padding: padding) }
        }
        checkGradients([random([2, 3, 4, 5])]) { Variable.globalAveragePool($0[0]) }
    }

    func testLosses() {
        let labels = [0, 2, 1, 2]
        checkGradients([random([4, 3], scale: 2)]) { Loss.softmaxCrossEntropy(logits: $0[0], labels: labels) }
        checkGradients([random([4, 3], scale: 2)]) {
            Loss.softmaxCrossEntropy(logits: $0[0], labels: labels, classWeights: [0.5, 2, 1], labelSmoothing: 0.1)
        }
        let targets = Tensor.randomUniform([4, 3], using: &generator).map { $0 > 0.5 ? 1 : 0 }
        checkGradients([random([4, 3], scale: 3)]) {
            Loss.binaryCrossEntropyWithLogits(logits: $0[0], targets: targets, positiveWeight: 2)
        }
        let target = random([4, 3])
        checkGradients([random([4, 3], scale: 2)]) { Loss.smoothL1($0[0], target, beta: 0.5) }
        checkGradients([random([4, 3])]) { Loss.meanSquaredError($0[0], target) }
    }

    func testLossValuesAgainstHandComputation() {
        let tape = Tape()
        let logits = tape.variable(Tensor(shape: [2, 3], scalars: [1, 2, 3, 0, 0, 0]))
        let ce = Loss.softmaxCrossEntropy(logits: logits, labels: [2, 0]).value.scalar
        let e1 = Foundation.exp(1.0), e2 = Foundation.exp(2.0), e3 = Foundation.exp(3.0)
        let expected = (-Foundation.log(e3 / (e1 + e2 + e3)) + Foundation.log(3.0)) / 2
        XCTAssertEqual(ce, Float(expected), accuracy: 1e-5)
        let weighted = Loss.softmaxCrossEntropy(logits: logits, labels: [2, 0], classWeights: [3, 1, 1]).value.scalar
        let w = (1 * -Foundation.log(e3 / (e1 + e2 + e3)) + 3 * Foundation.log(3.0)) / 4
        XCTAssertEqual(weighted, Float(w), accuracy: 1e-5)
        let bce = Loss.binaryCrossEntropyWithLogits(logits: tape.variable(Tensor([0, 2])), targets: Tensor([1, 0])).value.scalar
        XCTAssertEqual(bce, Float((Foundation.log(2.0) + Foundation.log(1 + e2)) / 2), accuracy: 1e-5)
        let sl1 = Loss.smoothL1(tape.variable(Tensor([0.5, 3])), Tensor([0, 0]), beta: 1).value.scalar
        XCTAssertEqual(sl1, (0.125 + 2.5) / 2, accuracy: 1e-6)
    }

    func testLayers() {
        var g = SeededGenerator(seed: 3)
        let linear = Linear(inputSize: 4, outputSize: 3, generator: &g)
        let conv = Conv2D(kernelSize: (3, 3), inputChannels: 2, outputChannels: 3, stride: (2, 2), generator: &g)
        let depthwise = DepthwiseConv2D(kernelSize: (5, 5), channels: 2, generator: &g)
        let temporal = Conv1D(kernelSize: 3, inputChannels: 2, outputChannels: 3, generator: &g)
        let batchNorm = BatchNorm(featureCount: 3)
        let layerNorm = LayerNorm(featureCount: 3)
        let dropout = Dropout(rate: 0.3)
        // Parameters as inputs: check weight gradients by routing them through the tape.
        checkGradients([random([2, 5, 4]), linear.weight.value, linear.bias!.value]) { v in
            linear.weight.value = v[1].value; linear.bias!.value = v[2].value
            return Variable.matmul(v[0].reshaped(to: [10, 4]), v[1]) + v[2]
        }
        checkGradients([random([2, 5, 4])]) { linear($0[0]) }
        checkGradients([random([2, 6, 6, 2])]) { conv($0[0]) }
        checkGradients([random([2, 6, 6, 2])]) { depthwise($0[0]) }
        checkGradients([random([2, 7, 2])]) { temporal($0[0]) }
        checkGradients([random([4, 5, 3], scale: 2)]) { batchNorm($0[0]) }
        checkGradients([random([4, 5, 3], scale: 2)], mode: .inference) { batchNorm($0[0]) }
        checkGradients([random([4, 3], scale: 2)]) { layerNorm($0[0]) }
        checkGradients([random([4, 6])]) { dropout($0[0]) }
        for a in [Activation.identity, .relu, .relu6, .sigmoid, .tanh, .swish, .gelu] {
            checkGradients([awayFromKinks([3, 4])]) { a($0[0]) }
        }
    }

    func testParameterGradientsMatchNumericalOnes() {
        // Differentiate with respect to the layer's own parameters through Gradients[parameter].
        var g = SeededGenerator(seed: 5)
        let conv = Conv2D(kernelSize: (3, 3), inputChannels: 2, outputChannels: 2, generator: &g)
        let x = random([1, 4, 4, 2])
        let tape = Tape()
        let loss = conv(tape.constant(x)).squared().sum()
        let grads = tape.gradients(of: loss)
        let analytic = grads[conv.weight]!
        let eps: Float = 1e-2
        for i in stride(from: 0, to: conv.weight.value.count, by: 5) {
            let original = conv.weight.value
            var plus = original.scalars; plus[i] += eps
            var minus = original.scalars; minus[i] -= eps
            conv.weight.value = Tensor(shape: original.shape, scalars: plus)
            let fp = conv(Tape().constant(x)).squared().sum().value.scalar
            conv.weight.value = Tensor(shape: original.shape, scalars: minus)
            let fm = conv(Tape().constant(x)).squared().sum().value.scalar
            conv.weight.value = original
            let numeric = (fp - fm) / (2 * eps)
            XCTAssertEqual(analytic.scalars[i], numeric, accuracy: 1e-2 * max(1, abs(numeric)))
        }
        XCTAssertNotNil(grads[conv.bias!])
        conv.freeze()
        let tape2 = Tape()
        let grads2 = tape2.gradients(of: conv(tape2.constant(x)).sum())
        XCTAssertNil(grads2[conv.weight], "a frozen parameter gets no gradient")
    }
}
