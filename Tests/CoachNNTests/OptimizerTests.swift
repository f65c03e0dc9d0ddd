import Foundation
import XCTest
import CoachNN
import TestSupport

/// Optimizers, schedules, clipping and freezing against hand-worked values.
final class OptimizerTests: XCTestCase {
    final class Single: Module {
        let w = Parameter(Tensor([1, -2]))
        var localParameters: [(String, Parameter)] { [("w", w)] }
    }

    /// Gradients of L = ½‖w‖² (so ∇ = w).
    func gradients(_ m: Single) -> Gradients {
        let tape = Tape()
        let loss = tape.variable(for: m.w).squared().sum() * 0.5
        return tape.gradients(of: loss)
    }

    func testSGDWithMomentumAndWeightDecay() {
        let m = Single()
        let sgd = SGD(learningRate: 0.1, momentum: 0.9, weightDecay: 0.5)
        sgd.update(m.namedParameters, gradients: gradients(m))
        // g = w + 0.5w = 1.5w; v = g; w ← w − 0.1·v = 0.85w
        assertClose(m.w.value.scalars, [0.85, -1.7])
        sgd.update(m.namedParameters, gradients: gradients(m))
        // g = 1.5·0.85w₀ = 1.275w₀; v = 0.9·1.5w₀ + 1.275w₀ = 2.625w₀; w = 0.85w₀ − 0.2625w₀
        assertClose(m.w.value.scalars, [0.5875, -1.175])
    }

    func testAdamFirstStepIsLearningRateTimesSign() {
        let m = Single()
        let adam = Adam(learningRate: 0.1)
        adam.update(m.namedParameters, gradients: gradients(m))
        assertClose(m.w.value.scalars, [0.9, -1.9], absolute: 1e-6)
    }

    func testAdamWDecouplesWeightDecay() {
        let m = Single()
        let adamW = Adam.adamW(learningRate: 0.1, weightDecay: 0.5)
        adamW.update(m.namedParameters, gradients: gradients(m))
        // w ← w − lr·wd·w − lr·sign(g) = w(1 − 0.05) − 0.1·sign(w)
        assertClose(m.w.value.scalars, [0.85, -1.8], absolute: 1e-6)
    }

    func testOptimizerStateRoundTripResumesIdentically() throws {
        let a = Single(), b = Single()
        let adamA = Adam(learningRate: 0.05)
        for _ in 0..<3 { adamA.update(a.namedParameters, gradients: gradients(a)) }
        b.w.value = a.w.value
        let adamB = Adam(learningRate: 0.05)
        try adamB.restore(adamA.state)
        adamA.update(a.namedParameters, gradients: gradients(a))
        adamB.update(b.namedParameters, gradients: gradients(b))
        XCTAssertEqual(a.w.value, b.w.value)
        XCTAssertThrowsError(try adamB.restore(["bogus": Tensor(1)]))
    }

    func testSchedules() {
        let cosine = CosineSchedule(base: 1, totalSteps: 100, minimum: 0.1)
        XCTAssertEqual(cosine.rate(at: 0), 1, accuracy: 1e-6)
        XCTAssertEqual(cosine.rate(at: 50), 0.55, accuracy: 1e-6)
        XCTAssertEqual(cosine.rate(at: 100), 0.1, accuracy: 1e-6)
        XCTAssertEqual(cosine.rate(at: 500), 0.1, accuracy: 1e-6)
        let step = StepSchedule(base: 1, stepSize: 10, factor: 0.5)
        XCTAssertEqual(step.rate(at: 9), 1)
        XCTAssertEqual(step.rate(at: 10), 0.5)
        XCTAssertEqual(step.rate(at: 25), 0.25)
        let warm = WarmUpSchedule(ConstantSchedule(2), warmUpSteps: 4, startFactor: 0)
        XCTAssertEqual((0..<6).map { warm.rate(at: $0) }, [0.5, 1, 1.5, 2, 2, 2])
    }

    func testClippingAndFreezing() {
        let m = Single()
        var g = gradients(m)
        let norm = GradientClipping.clipByGlobalNorm(&g, parameters: [m.w], maxNorm: 1)
        XCTAssertEqual(norm, Float(5).squareRoot(), accuracy: 1e-6)
        XCTAssertEqual(GradientClipping.globalNorm([m.w], gradients: g), 1, accuracy: 1e-6)
        m.freeze()
        let sgd = SGD(learningRate: 1)
        sgd.update(m.namedParameters, gradients: gradients(m))
        XCTAssertEqual(m.w.value.scalars, [1, -2], "frozen weights do not move")
        m.unfreeze()
        sgd.update(m.namedParameters, gradients: gradients(m))
        XCTAssertEqual(m.w.value.scalars, [0, 0])
    }

    func testNamesAreStableAndLoadReportsEveryProblem() throws {
        var g = SeededGenerator(seed: 1)
        let model = TrainingTests.SmallCNN(generator: &g)
        let names = model.namedParameters.map(\.name)
        XCTAssertEqual(Array(names.prefix(3)), ["conv1.weight", "conv1.bias", "bn1.scale"])
        XCTAssertTrue(names.contains("bn1.runningVariance"))
        XCTAssertEqual(Set(names).count, names.count)
        var state = model.stateDictionary
        state["conv1.weight"] = Tensor.zeros([1])
        state["head.bias"] = nil
        XCTAssertThrowsError(try model.load(state)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("conv1.weight") && text.contains("head.bias"), text)
        }
        let other = TrainingTests.SmallCNN(generator: &g)
        try other.load(model.stateDictionary)
        XCTAssertEqual(other.stateDictionary, model.stateDictionary)
    }

    func testGradientCheckCatchesAWrongBackward() {
        // An op whose backward is deliberately 2× too large must be flagged.
        var g = SeededGenerator(seed: 9)
        let x = Tensor.randomNormal([3], using: &g)
        let error = checkGradients([x], tolerance: 100) { v in
            v[0].tape.record(v[0].value * 3, inputs: [v[0]]) { grad in [grad * 6] }
        }
        XCTAssertGreaterThan(error, 0.4)
    }
}
