import CoachVision
import XCTest

final class ParabolaFitTests: XCTestCase {
    func testTenPointsOnAKnownParabolaRecoverItsCoefficients() throws {
        // y = 0.5x² − 2x + 3 at x = 0…9.
        let xs = (0..<10).map(Double.init)
        let ys = xs.map { 0.5 * $0 * $0 - 2 * $0 + 3 }
        let fit = try XCTUnwrap(ParabolaFit(x: xs, y: ys))
        XCTAssertEqual(fit.a, 0.5, accuracy: 1e-6)
        XCTAssertEqual(fit.b, -2, accuracy: 1e-6)
        XCTAssertEqual(fit.c, 3, accuracy: 1e-6)
        XCTAssertEqual(fit.residuals.count, 10)
        XCTAssertLessThan(fit.rootMeanSquareResidual, 1e-9)
        XCTAssertEqual(fit.value(at: 4), 3, accuracy: 1e-9)       // 8 − 8 + 3
        XCTAssertEqual(fit.slope(at: 4), 2, accuracy: 1e-9)       // 2·0.5·4 − 2
    }

    func testFarFromTheOriginTheCenteredSolveStaysAccurate() throws {
        // y = −0.02x² + 40x − 19 990 at x = 1000…1009: raw normal equations would hold x⁴ ≈ 10¹².
        let xs = (0..<10).map { 1000 + Double($0) }
        let ys = xs.map { -0.02 * $0 * $0 + 40 * $0 - 19_990 }
        let fit = try XCTUnwrap(ParabolaFit(x: xs, y: ys))
        XCTAssertEqual(fit.a, -0.02, accuracy: 1e-6)
        XCTAssertEqual(fit.b, 40, accuracy: 1e-6 * 40 * 1000)
        XCTAssertEqual(fit.value(at: 1004.5), -0.02 * 1004.5 * 1004.5 + 40 * 1004.5 - 19_990, accuracy: 1e-6)
    }

    func testNormalisedTrajectoryScaleIsRecovered() throws {
        // The detector's case: x in 0.1…0.5, y = −1.7x² + 1.4x + 0.3.
        let xs = (0..<10).map { 0.1 + 0.04 * Double($0) }
        let ys = xs.map { -1.7 * $0 * $0 + 1.4 * $0 + 0.3 }
        let fit = try XCTUnwrap(ParabolaFit(x: xs, y: ys))
        XCTAssertEqual(fit.a, -1.7, accuracy: 1e-6)
        XCTAssertEqual(fit.b, 1.4, accuracy: 1e-6)
        XCTAssertEqual(fit.c, 0.3, accuracy: 1e-6)
    }

    func testNoisyPointsGiveApproximatelyTheCoefficients() throws {
        // Deterministic noise of ±0.05 on y = 0.5x² − 2x + 3 over x = 0…9 (y spans 1…25.5).
        let noise = [0.04, -0.03, 0.05, -0.05, 0.01, 0.02, -0.04, 0.03, -0.01, -0.02]
        let xs = (0..<10).map(Double.init)
        let ys = xs.enumerated().map { 0.5 * $1 * $1 - 2 * $1 + 3 + noise[$0] }
        let fit = try XCTUnwrap(ParabolaFit(x: xs, y: ys))
        XCTAssertEqual(fit.a, 0.5, accuracy: 0.01)
        XCTAssertEqual(fit.b, -2, accuracy: 0.1)
        XCTAssertEqual(fit.c, 3, accuracy: 0.1)
        XCTAssertNotEqual(fit.a, 0.5)   // the noise does move the fit
        XCTAssertGreaterThan(fit.rootMeanSquareResidual, 0.01)
        XCTAssertLessThan(fit.rootMeanSquareResidual, 0.05)
    }

    func testResidualsOfAHandWorkedFit() throws {
        // (−1, 1), (0, 0), (0, 1), (1, 1): symmetric, so b = 0; at x = 0 the best value is the
        // mean 0.5 = c; a + c = 1 gives a = 0.5. Residuals: 0, −0.5, 0.5, 0.
        let fit = try XCTUnwrap(ParabolaFit(x: [-1, 0, 0, 1], y: [1, 0, 1, 1]))
        XCTAssertEqual(fit.a, 0.5, accuracy: 1e-12)
        XCTAssertEqual(fit.b, 0, accuracy: 1e-12)
        XCTAssertEqual(fit.c, 0.5, accuracy: 1e-12)
        let expected = [0, -0.5, 0.5, 0]
        for (residual, value) in zip(fit.residuals, expected) { XCTAssertEqual(residual, value, accuracy: 1e-12) }
        XCTAssertEqual(fit.rootMeanSquareResidual, (0.5 / 4).squareRoot(), accuracy: 1e-12)
    }

    func testDegenerateInputsGiveNil() {
        XCTAssertNil(ParabolaFit(x: [], y: []))
        XCTAssertNil(ParabolaFit(x: [1, 2], y: [1, 4]))                              // two points
        XCTAssertNil(ParabolaFit(x: [3, 3, 3, 3, 3], y: [1, 2, 3, 4, 5]))            // all x equal
        XCTAssertNil(ParabolaFit(x: [1, 1, 2, 2], y: [0, 1, 2, 3]))                  // two distinct x
        XCTAssertNil(ParabolaFit(x: [0, 1, 2], y: [0, .nan, 4]))                     // not finite
        XCTAssertNil(ParabolaFit(x: [0, .infinity, 2], y: [0, 1, 4]))
        XCTAssertNil(ParabolaFit(x: [0, 1, 2], y: [0, 1]))                           // unequal lengths
        XCTAssertNotNil(ParabolaFit(x: [0, 1, 2], y: [0, 1, 4]))                     // control: three points
    }
}
