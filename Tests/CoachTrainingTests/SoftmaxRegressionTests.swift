import CoachModels
import CoachRandom
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// The L-BFGS logistic regression against independent references: a finite-difference
/// gradient, and the optimality condition at the solution.
final class SoftmaxRegressionTests: XCTestCase {
    private func problem(seed: UInt64, rows: Int = 60, features: Int = 5, classes: Int = 3) -> (Tensor, [Int]) {
        var generator = SeededGenerator(seed: seed)
        var values: [Float] = [], labels: [Int] = []
        for row in 0..<rows {
            let label = row % classes
            for feature in 0..<features {
                values.append(generator.nextNormal() + (feature == label ? 1.5 : 0))
            }
            labels.append(label)
        }
        return (Tensor(shape: [rows, features], scalars: values), labels)
    }

    func testGradientMatchesFiniteDifferences() {
        let (x, y) = problem(seed: 1)
        let regression = SoftmaxRegression(l2Penalty: 0.1)
        var generator = SeededGenerator(seed: 2)
        let packed = (0..<(5 * 3 + 3)).map { _ in generator.nextUniform(-0.5, 0.5) }
        let analytic = regression.objective(packed, features: x, labels: y, classCount: 3).gradient
        for index in packed.indices {
            var plus = packed, minus = packed
            plus[index] += 1e-2; minus[index] -= 1e-2
            let numeric = (regression.objective(plus, features: x, labels: y, classCount: 3).value
                           - regression.objective(minus, features: x, labels: y, classCount: 3).value) / 2e-2
            XCTAssertEqual(Double(analytic[index]), numeric, accuracy: 2e-3, "parameter \(index)")
        }
    }

    /// With sample weights the loss is the weighted mean, and its gradient matches finite differences;
    /// doubling a row's weight equals repeating the row.
    func testWeightedGradientMatchesFiniteDifferencesAndRepetition() {
        let (x, y) = problem(seed: 3, rows: 12)
        let regression = SoftmaxRegression(l2Penalty: 0.05)
        var generator = SeededGenerator(seed: 4)
        let weights = (0..<12).map { _ in generator.nextUniform(0.2, 3) }
        let packed = (0..<(5 * 3 + 3)).map { _ in generator.nextUniform(-0.5, 0.5) }
        let analytic = regression.objective(packed, features: x, labels: y, classCount: 3, sampleWeights: weights).gradient
        for index in packed.indices {
            var plus = packed, minus = packed
            plus[index] += 1e-2; minus[index] -= 1e-2
            let numeric = (regression.objective(plus, features: x, labels: y, classCount: 3, sampleWeights: weights).value
                           - regression.objective(minus, features: x, labels: y, classCount: 3, sampleWeights: weights).value) / 2e-2
            XCTAssertEqual(Double(analytic[index]), numeric, accuracy: 2e-3, "parameter \(index)")
        }
        var doubled = [Float](repeating: 1, count: 12)
        doubled[0] = 2
        let repeated = Tensor(shape: [13, 5], scalars: x.scalars + Array(x.scalars[0..<5]))
        let a = regression.objective(packed, features: x, labels: y, classCount: 3, sampleWeights: doubled)
        let b = regression.objective(packed, features: repeated, labels: y + [y[0]], classCount: 3)
        XCTAssertEqual(a.value, b.value, accuracy: 1e-5)
        for (g, h) in zip(a.gradient, b.gradient) { XCTAssertEqual(g, h, accuracy: 1e-5) }
    }

    /// Rows given as blocks (the image head's refit over training and validation matrices, without a
    /// concatenated copy) are the same problem as the rows concatenated: same objective, same gradient,
    /// and a fit to the same optimum.
    func testBlocksAreTheConcatenatedRows() {
        let (x, y) = problem(seed: 8, rows: 30)
        let first = x.rows(Array(0..<19)), second = x.rows(Array(19..<30))
        let regression = SoftmaxRegression(l2Penalty: 0.05)
        var generator = SeededGenerator(seed: 9)
        let weights = (0..<30).map { _ in generator.nextUniform(0.2, 3) }
        let packed = (0..<(5 * 3 + 3)).map { _ in generator.nextUniform(-0.5, 0.5) }
        let whole = regression.objective(packed, features: x, labels: y, classCount: 3, sampleWeights: weights)
        let split = regression.objective(packed, blocks: [first, second], labels: y, classCount: 3, sampleWeights: weights)
        XCTAssertEqual(whole.value, split.value, accuracy: 1e-6)
        for (g, h) in zip(whole.gradient, split.gradient) { XCTAssertEqual(g, h, accuracy: 1e-5) }
        let fitWhole = regression.fit(features: x, labels: y, classCount: 3, maximumIterations: 200).parameters
        let fitSplit = regression.fit(blocks: [first, second], labels: y, classCount: 3, maximumIterations: 200).parameters
        for (a, b) in zip(fitWhole.weight.scalars + fitWhole.bias.scalars, fitSplit.weight.scalars + fitSplit.bias.scalars) {
            XCTAssertEqual(a, b, accuracy: 1e-3)
        }
    }

    /// With wide features the objective takes the rows in passes (150 rows of 20,000 features are
    /// three passes of at most 64 rows), each pass's logits then its share of the gradient. That is
    /// the same bits as all the logits first and one transposed product over all the rows, and the
    /// gradient still matches finite differences.
    func testObjectiveInPassesOfRowsIsOnePassBitForBit() {
        let rows = 150, features = 20_000, classes = 3
        var generator = SeededGenerator(seed: 12)
        let x = Tensor(shape: [rows, features], scalars: (0..<(rows * features)).map { _ in generator.nextNormal() * 0.05 })
        let y = (0..<rows).map { $0 % classes }
        let weights = (0..<rows).map { _ in generator.nextUniform(0.5, 2) }
        let packed = (0..<(features * classes + classes)).map { _ in generator.nextUniform(-0.05, 0.05) }
        let regression = SoftmaxRegression(l2Penalty: 0.01)
        let evaluation = regression.objective(packed, features: x, labels: y, classCount: classes, sampleWeights: weights)

        // One pass: every logit, then every residual, then one product over all the rows.
        let weight = Tensor(shape: [features, classes], scalars: Array(packed[0..<(features * classes)]))
        let bias = Tensor(shape: [classes], scalars: Array(packed[(features * classes)...]))
        let probabilities = (Tensor.thinMatmul(x, weight) + bias).softmax(axis: -1)
        let scale = 1 / Float(Double(weights.reduce(0, +)))
        var residual = probabilities.scalars
        var biasGradient = [Float](repeating: 0, count: classes)
        for row in 0..<rows {
            residual[row * classes + y[row]] -= 1
            for c in 0..<classes { residual[row * classes + c] *= weights[row] * scale }
            for c in 0..<classes { biasGradient[c] += residual[row * classes + c] }
        }
        let product = Tensor.thinMatmulTransposed(x, Tensor(shape: [rows, classes], scalars: residual)).scalars
        let expected = product.indices.map { 0 + product[$0] + Float(0.01) * packed[$0] } + biasGradient
        XCTAssertEqual(evaluation.gradient.count, expected.count)
        let differing = zip(evaluation.gradient, expected).filter { $0.bitPattern != $1.bitPattern }.count
        XCTAssertEqual(differing, 0, "gradient elements that differ in their bits from one pass's")

        for index in [0, 7_777, features * classes - 1, features * classes + 1] {
            var plus = packed, minus = packed
            plus[index] += 1e-2; minus[index] -= 1e-2
            let numeric = (regression.objective(plus, features: x, labels: y, classCount: classes, sampleWeights: weights).value
                           - regression.objective(minus, features: x, labels: y, classCount: classes, sampleWeights: weights).value) / 2e-2
            XCTAssertEqual(Double(evaluation.gradient[index]), numeric, accuracy: 2e-3, "parameter \(index)")
        }
    }

    func testConvergesToTheRegularisedOptimum() {
        let (x, y) = problem(seed: 5)
        let regression = SoftmaxRegression(l2Penalty: 0.05)
        let fit = regression.fit(features: x, labels: y, classCount: 3, maximumIterations: 200)
        let packed = fit.parameters.weight.scalars + fit.parameters.bias.scalars
        let gradient = regression.objective(packed, features: x, labels: y, classCount: 3).gradient
        XCTAssertLessThan(gradient.map(abs).max()!, 1e-3, "the gradient vanishes at the optimum")
        // At the optimum, λ·W = −Xᵀ(P − Y)/N, so the mean residual per class (bias gradient) is 0.
        let biasGradient = gradient.suffix(3)
        XCTAssertLessThan(biasGradient.map(abs).max()!, 1e-3)
        // And the same data always gives the same parameters (no randomness).
        XCTAssertEqual(regression.fit(features: x, labels: y, classCount: 3, maximumIterations: 200).parameters, fit.parameters)
    }

    /// When no step decreases the objective (every step goes up, as float rounding makes it near an optimum),
    /// a small gradient (below scikit-learn's 1e-4) is the minimum reached; a large one is a failure.
    func testStalledLineSearchIsConvergenceOnlyWithASmallGradient() {
        for (gradient, expected) in [(Float(5e-5), LBFGSMinimizer.Termination.converged), (1, .lineSearchFailed)] {
            let result = LBFGSMinimizer().minimize(from: [0, 0], maximumIterations: 10,
                                                   objective: { x in (1 + Double(abs(x[0]) + abs(x[1])), [gradient, -gradient]) },
                                                   observer: { _, _, _ in true })
            XCTAssertEqual(result.termination, expected, "gradient \(gradient)")
            XCTAssertEqual(result.point, [0, 0])
        }
    }

    func testStandardisationFoldsIntoTheLayer() {
        let (x, _) = problem(seed: 9)
        let standardization = FeatureStandardization(fitting: x)
        var generator = SeededGenerator(seed: 3)
        let weight = Tensor(shape: [5, 3], scalars: (0..<15).map { _ in generator.nextNormal() })
        let bias = Tensor([0.1, -0.2, 0.3])
        let direct = Tensor.matmul(standardization.apply(x), weight) + bias
        let folded = standardization.folded(weight: weight, bias: bias)
        assertClose((Tensor.matmul(x, folded.weight) + folded.bias).scalars, direct.scalars, absolute: 1e-4)
    }
}
