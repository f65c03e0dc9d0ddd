import CoachRandom
import CoachVision
import XCTest

/// A smooth random texture: uniform noise blurred `passes` times with the binomial kernel
/// [1, 2, 1]/4 along each axis (whose spectrum has no zeros below the Nyquist frequency).
func smoothTexture(width: Int, height: Int, seed: UInt64, passes: Int = 3) -> GrayImage {
    var generator = SeededGenerator(seed: seed)
    var values = (0..<(width * height)).map { _ in generator.nextUniform(0, 255) }
    for _ in 0..<passes {
        var blurred = values
        for y in 0..<height {
            for x in 0..<width {
                let left = values[y * width + max(0, x - 1)], right = values[y * width + min(width - 1, x + 1)]
                blurred[y * width + x] = (left + 2 * values[y * width + x] + right) / 4
            }
        }
        values = blurred
        for y in 0..<height {
            for x in 0..<width {
                let up = blurred[max(0, y - 1) * width + x], down = blurred[min(height - 1, y + 1) * width + x]
                values[y * width + x] = (up + 2 * blurred[y * width + x] + down) / 4
            }
        }
    }
    return GrayImage(width: width, height: height, pixels: values)
}

/// The `width × height` window of `texture` whose top-left corner is at (`left`, `top`), sampled
/// bilinearly (so fractional corners give sub-pixel shifts).
func window(of texture: GrayImage, left: Double, top: Double, width: Int, height: Int) -> GrayImage {
    var values = [Float](repeating: 0, count: width * height)
    for y in 0..<height {
        for x in 0..<width {
            let u = left + Double(x), v = top + Double(y)
            let u0 = Int(u.rounded(.down)), v0 = Int(v.rounded(.down))
            let fu = Float(u - Double(u0)), fv = Float(v - Double(v0))
            let a = texture[u0, v0], b = texture[u0 + 1, v0]
            let c = texture[u0, v0 + 1], d = texture[u0 + 1, v0 + 1]
            values[y * width + x] = (a * (1 - fu) + b * fu) * (1 - fv) + (c * (1 - fu) + d * fu) * fv
        }
    }
    return GrayImage(width: width, height: height, pixels: values)
}

final class PhaseCorrelationTests: XCTestCase {
    func testCircularIntegerShiftIsExact() throws {
        let width = 96, height = 80
        let texture = smoothTexture(width: width, height: height, seed: 1)
        // current(x, y) = previous(x − 7, y + 3): content moved right by 7 and up by 3.
        var moved = GrayImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                moved[x, y] = texture[((x - 7) % width + width) % width, ((y + 3) % height + height) % height]
            }
        }
        let correlator = try PhaseCorrelator(width: width, height: height)
        let result = try correlator.shift(from: texture, to: moved)
        XCTAssertEqual(result.shift.x, 7, accuracy: 0.05)
        XCTAssertEqual(result.shift.y, -3, accuracy: 0.05)
        XCTAssertGreaterThan(result.confidence, 0.3)
    }

    func testCroppedIntegerShiftIsExact() throws {
        let texture = smoothTexture(width: 200, height: 160, seed: 2)
        // The camera window moves left by 7 and down by 3, so content moves by (+7, −3).
        let previous = window(of: texture, left: 40, top: 30, width: 120, height: 90)
        let current = window(of: texture, left: 33, top: 33, width: 120, height: 90)
        let correlator = try PhaseCorrelator(width: 120, height: 90)
        let result = try correlator.shift(from: previous, to: current)
        XCTAssertEqual(result.shift.x, 7, accuracy: 0.05)
        XCTAssertEqual(result.shift.y, -3, accuracy: 0.05)
    }

    func testSubpixelShiftIsApproximate() throws {
        let texture = smoothTexture(width: 200, height: 160, seed: 3)
        let correlator = try PhaseCorrelator(width: 128, height: 96)
        let previous = window(of: texture, left: 40, top: 30, width: 128, height: 96)
        for (dx, dy) in [(2.5, -1.25), (-4.3, 0.7), (0.4, 3.6)] {
            let current = window(of: texture, left: 40 - dx, top: 30 - dy, width: 128, height: 96)
            let result = try correlator.shift(from: previous, to: current)
            XCTAssertEqual(result.shift.x, dx, accuracy: 0.2, "shift (\(dx), \(dy))")
            XCTAssertEqual(result.shift.y, dy, accuracy: 0.2, "shift (\(dx), \(dy))")
        }
    }

    func testIdenticalFramesGiveZeroShiftWithFullConfidence() throws {
        let texture = smoothTexture(width: 64, height: 48, seed: 4)
        let correlator = try PhaseCorrelator(width: 64, height: 48)
        let result = try correlator.shift(from: texture, to: texture)
        XCTAssertEqual(result.shift.x, 0, accuracy: 1e-6)
        XCTAssertEqual(result.shift.y, 0, accuracy: 1e-6)
        XCTAssertGreaterThan(result.confidence, 0.95)
    }

    func testSpectraCanBeReusedAcrossFrames() throws {
        let texture = smoothTexture(width: 160, height: 120, seed: 5)
        let correlator = try PhaseCorrelator(width: 90, height: 60)
        let frames = [(20.0, 20.0), (25.0, 18.0), (22.0, 26.0)].map {
            window(of: texture, left: $0.0, top: $0.1, width: 90, height: 60)
        }
        let spectra = try frames.map { try correlator.spectrum(of: $0) }
        let first = try correlator.shift(from: spectra[0], to: spectra[1])
        let second = try correlator.shift(from: spectra[1], to: spectra[2])
        // One pass with a fixed window: within the documented pull towards zero (≈ 2 % of an
        // eighth-of-the-image shift, so 0.2 px here).
        XCTAssertEqual(first.shift.x, -5, accuracy: 0.2)
        XCTAssertEqual(first.shift.y, 2, accuracy: 0.2)
        XCTAssertEqual(second.shift.x, 3, accuracy: 0.2)
        XCTAssertEqual(second.shift.y, -8, accuracy: 0.2)
        // The two-pass image API removes the pull.
        let refined = try correlator.shift(from: frames[1], to: frames[2])
        XCTAssertEqual(refined.shift.x, 3, accuracy: 0.05)
        XCTAssertEqual(refined.shift.y, -8, accuracy: 0.05)
    }

    func testFlatImagesAndWrongSizesDoNotCrash() throws {
        let correlator = try PhaseCorrelator(width: 16, height: 16)
        let flat = GrayImage(width: 16, height: 16, value: 100)
        let result = try correlator.shift(from: flat, to: flat)
        XCTAssertEqual(result.confidence, 0)
        XCTAssertThrowsError(try correlator.shift(from: flat, to: GrayImage(width: 8, height: 16))) { error in
            XCTAssertEqual(error as? PhaseCorrelationError,
                           .sizeMismatch(expectedWidth: 16, expectedHeight: 16, width: 8, height: 16))
        }
        XCTAssertThrowsError(try PhaseCorrelator(width: 0, height: 5))
        let tiny = try PhaseCorrelator(width: 1, height: 1)
        let single = GrayImage(width: 1, height: 1, value: 3)
        XCTAssertEqual(try tiny.shift(from: single, to: single).shift, .zero)
    }

    func testFastLengthIsASmallFactorTimesAPowerOfTwo() {
        // 180 = 45 · 4 and 45 is not one of av_tx's factors; 160 = 5 · 32 is the next below.
        XCTAssertEqual(PhaseCorrelator.fastLength(atMost: 180), 160)
        XCTAssertEqual(PhaseCorrelator.fastLength(atMost: 320), 320)
        XCTAssertEqual(PhaseCorrelator.fastLength(atMost: 319), 288)
        XCTAssertEqual(PhaseCorrelator.fastLength(atMost: 100), 96)
        XCTAssertEqual(PhaseCorrelator.fastLength(atMost: 1), 1)
        XCTAssertEqual(PhaseCorrelator.fastLength(atMost: 0), 0)
    }
}
