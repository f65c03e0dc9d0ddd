import CoachData
import Foundation
import TestSupport
import XCTest

/// The resize is scikit-image's `resize(order=1, anti_aliasing=True)`: a Gaussian prefilter
/// (σ = (scale − 1)/2, radius ⌊4σ + 0.5⌋, 'mirror' boundary) then bilinear sampling at
/// `(o + 0.5)·scale − 0.5` (mirrored at the borders). These tests check it on inputs whose
/// answer can be worked out by hand.
final class ImageResizingTests: XCTestCase {
    private func grayRow(_ values: [Float]) throws -> FloatImage {
        try FloatImage(width: values.count, height: 1, channels: 1, values: values)
    }

    func testConstantImageStaysConstant() throws {
        let image = RGBImage(width: 53, height: 31, color: RGBColor(red: 10, green: 200, blue: 77))
        for (width, height) in [(7, 5), (53, 31), (120, 90), (20, 60), (1, 1)] {
            let resized = try image.resized(width: width, height: height)
            XCTAssertEqual(resized.width, width)
            XCTAssertEqual(resized.height, height)
            for index in stride(from: 0, to: resized.values.count, by: 3) {
                XCTAssertEqual(resized.values[index], 10, accuracy: 1e-3)
                XCTAssertEqual(resized.values[index + 1], 200, accuracy: 1e-3)
                XCTAssertEqual(resized.values[index + 2], 77, accuracy: 1e-3)
            }
        }
    }

    func testSameSizeIsIdentity() throws {
        let image = ImageFixtures.pattern(width: 17, height: 9)
        XCTAssertEqual(try image.resized(width: 17, height: 9), FloatImage(image))
    }

    func testHalvingByHand() throws {
        // 4 → 2: scale 2, σ = 0.5, radius ⌊2.5⌋ = 2, weights ∝ exp(−2k²) for k = −2...2.
        let x: [Float] = [0, 10, 100, 1000]
        let raw = (-2...2).map { exp(-2 * Double($0 * $0)) }
        let g = raw.map { $0 / raw.reduce(0, +) }
        // 'mirror' extension of [a b c d]: x[-2] = c, x[-1] = b, x[4] = c, x[5] = b.
        let extended: [Double] = [100, 10, 0, 10, 100, 1000, 100, 10].map { Double($0) }  // indices −2...5
        func blurred(_ i: Int) -> Double { (0..<5).map { g[$0] * extended[i + $0] }.reduce(0, +) }
        // Output o samples the blurred signal at (o + 0.5)·2 − 0.5 = 0.5 and 2.5.
        let expected = [0.5 * (blurred(0) + blurred(1)), 0.5 * (blurred(2) + blurred(3))]
        let resized = try grayRow(x).resized(width: 2, height: 1)
        XCTAssertEqual(Double(resized.values[0]), expected[0], accuracy: 1e-3)
        XCTAssertEqual(Double(resized.values[1]), expected[1], accuracy: 1e-3)
    }

    func testDoublingByHand() throws {
        // 2 → 4: no blur; sample at −0.25, 0.25, 0.75, 1.25, mirrored: ¾a+¼b, ¾a+¼b, ¼a+¾b, ¼a+¾b.
        let resized = try grayRow([40, 80]).resized(width: 4, height: 1)
        XCTAssertEqual(resized.values, [50, 50, 70, 70])
        let tall = try FloatImage(width: 1, height: 2, channels: 1, values: [40, 80]).resized(width: 1, height: 4)
        XCTAssertEqual(tall.values, [50, 50, 70, 70])
    }

    func testLinearRampStaysLinearAwayFromTheBorders() throws {
        // Both the symmetric blur and linear interpolation keep a linear function linear, so
        // output o must equal the ramp at input coordinate (o + 0.5)·scale − 0.5.
        let width = 300, output = 70
        let ramp = try grayRow((0..<width).map { Float($0) * 0.5 + 3 })
        let resized = try ramp.resized(width: output, height: 1)
        let scale = Double(width) / Double(output)
        let radius = Int(4 * (scale - 1) / 2 + 0.5)
        for o in 0..<output {
            let coordinate = (Double(o) + 0.5) * scale - 0.5
            guard coordinate - Double(radius) - 1 >= 0, coordinate + Double(radius) + 2 <= Double(width - 1) else { continue }
            XCTAssertEqual(Double(resized.values[o]), coordinate * 0.5 + 3, accuracy: 1e-3, "output \(o)")
        }
    }

    func testDownscaleMatchesBlurThenSampleComputedDirectly() throws {
        // The fused separable weights must equal the two steps done literally on the full
        // image: blur every pixel (mirror boundary), then bilinear at the mapped points.
        let width = 23, height = 17, outputWidth = 6, outputHeight = 5
        let image = ImageFixtures.pattern(width: width, height: height)
        func mirror(_ i: Int, _ n: Int) -> Int {
            let period = 2 * n - 2
            var value = i % period
            if value < 0 { value += period }
            return value >= n ? period - value : value
        }
        func kernel(_ scale: Double) -> [Double] {
            let sigma = (scale - 1) / 2
            let radius = Int(4 * sigma + 0.5)
            let raw = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
            return raw.map { $0 / raw.reduce(0, +) }
        }
        let kx = kernel(Double(width) / Double(outputWidth)), ky = kernel(Double(height) / Double(outputHeight))
        let rx = kx.count / 2, ry = ky.count / 2
        var blurred = [Double](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 {
                    var sum = 0.0
                    for j in -ry...ry {
                        for i in -rx...rx {
                            let pixel = image[mirror(x + i, width), mirror(y + j, height)]
                            let value = [pixel.red, pixel.green, pixel.blue][c]
                            sum += kx[i + rx] * ky[j + ry] * Double(value)
                        }
                    }
                    blurred[(y * width + x) * 3 + c] = sum
                }
            }
        }
        let resized = try image.resized(width: outputWidth, height: outputHeight)
        for oy in 0..<outputHeight {
            for ox in 0..<outputWidth {
                let cx = (Double(ox) + 0.5) * Double(width) / Double(outputWidth) - 0.5
                let cy = (Double(oy) + 0.5) * Double(height) / Double(outputHeight) - 0.5
                let x0 = Int(cx.rounded(.down)), y0 = Int(cy.rounded(.down))
                let fx = cx - Double(x0), fy = cy - Double(y0)
                for c in 0..<3 {
                    func b(_ x: Int, _ y: Int) -> Double { blurred[(mirror(y, height) * width + mirror(x, width)) * 3 + c] }
                    let expected = (1 - fy) * ((1 - fx) * b(x0, y0) + fx * b(x0 + 1, y0))
                        + fy * ((1 - fx) * b(x0, y0 + 1) + fx * b(x0 + 1, y0 + 1))
                    XCTAssertEqual(Double(resized[ox, oy, c]), expected, accuracy: 1e-3, "(\(ox), \(oy), \(c))")
                }
            }
        }
    }

    func testShortSideSizesRoundHalfToEven() {
        XCTAssertTrue(ImageResizing.size(width: 451, height: 300, shortSide: 256) == (385, 256))  // 384.85
        XCTAssertTrue(ImageResizing.size(width: 640, height: 427, shortSide: 256) == (384, 256))  // 383.70
        XCTAssertTrue(ImageResizing.size(width: 300, height: 451, shortSide: 256) == (256, 385))
        XCTAssertTrue(ImageResizing.size(width: 512, height: 512, shortSide: 256) == (256, 256))
        XCTAssertTrue(ImageResizing.size(width: 3, height: 2, shortSide: 3) == (4, 3))  // 4.5 → 4
        XCTAssertTrue(ImageResizing.size(width: 5, height: 2, shortSide: 3) == (8, 3))  // 7.5 → 8
    }

    func testCentreCropEqualsCroppingTheFullResize() throws {
        let image = ImageFixtures.pattern(width: 91, height: 60)
        let direct = try image.resizedAndCenterCropped(shortSide: 40, cropWidth: 32, cropHeight: 30)
        let size = ImageResizing.size(width: 91, height: 60, shortSide: 40)  // 61×40 (60.67)
        XCTAssertTrue(size == (61, 40))
        let full = try image.resized(width: 61, height: 40)
        let expected = try full.cropped(x: (61 - 32) / 2, y: (40 - 30) / 2, width: 32, height: 30)
        XCTAssertEqual(direct.width, 32)
        XCTAssertEqual(direct.height, 30)
        XCTAssertLessThan(maxAbsoluteDifference(direct.values, expected.values), 1e-3)
        XCTAssertThrowsError(try image.resizedAndCenterCropped(shortSide: 40, cropWidth: 62, cropHeight: 30))
    }

    func testInvalidSizesThrow() {
        let image = ImageFixtures.pattern(width: 4, height: 4)
        XCTAssertThrowsError(try image.resized(width: 0, height: 3))
        XCTAssertThrowsError(try RGBImage(width: 0, height: 0, color: .black).resized(width: 3, height: 3))
        XCTAssertThrowsError(try image.letterboxed(width: 0, height: 10))
    }

    // MARK: - Letterbox

    func testLandscapeLetterbox() throws {
        let image = ImageFixtures.pattern(width: 640, height: 427)
        let boxed = try image.letterboxed(width: 416, height: 416, fillValue: 127)
        let t = boxed.transform
        // scale = min(416/640, 416/427) = 0.65; 427 · 0.65 = 277.55 → 278; offset (416 − 278) / 2 = 69.
        XCTAssertEqual(t.contentWidth, 416)
        XCTAssertEqual(t.contentHeight, 278)
        XCTAssertEqual(t.offsetX, 0)
        XCTAssertEqual(t.offsetY, 69)
        XCTAssertEqual(boxed.image.width, 416)
        XCTAssertEqual(boxed.image.height, 416)
        // Padding rows hold the fill value; the content equals a plain resize.
        for y in [0, 68, 347, 415] {
            for x in [0, 200, 415] { XCTAssertEqual(boxed.image[x, y, 1], 127, "(\(x), \(y))") }
        }
        let content = try image.resized(width: 416, height: 278)
        let window = try boxed.image.cropped(x: 0, y: 69, width: 416, height: 278)
        XCTAssertEqual(maxAbsoluteDifference(window.values, content.values), 0)
        // Corners of the original map to the corners of the content.
        let topLeft = t.letterboxPoint(x: 0, y: 0), bottomRight = t.letterboxPoint(x: 640, y: 427)
        XCTAssertEqual(topLeft.x, 0, accuracy: 1e-9)
        XCTAssertEqual(topLeft.y, 69, accuracy: 1e-9)
        XCTAssertEqual(bottomRight.x, 416, accuracy: 1e-9)
        XCTAssertEqual(bottomRight.y, 347, accuracy: 1e-9)
    }

    func testPortraitLetterboxAndRoundTrip() throws {
        let image = ImageFixtures.pattern(width: 30, height: 80)
        let boxed = try image.letterboxed(width: 64, height: 40, fillValue: 0)
        let t = boxed.transform
        // scale = min(64/30, 40/80) = 0.5 → 15×40 content at x = (64 − 15) / 2 = 24.
        XCTAssertEqual(t.contentWidth, 15)
        XCTAssertEqual(t.contentHeight, 40)
        XCTAssertEqual(t.offsetX, 24)
        XCTAssertEqual(t.offsetY, 0)
        XCTAssertEqual(t.scaleX, 0.5, accuracy: 1e-12)
        XCTAssertEqual(boxed.image[23, 20, 0], 0)
        XCTAssertEqual(boxed.image[39, 20, 2], 0)
        XCTAssertNotEqual(boxed.image[30, 20, 1], 0)
        // A box centre maps there and back.
        let point = t.letterboxPoint(x: 12.5, y: 33)
        XCTAssertEqual(point.x, 24 + 6.25, accuracy: 1e-9)
        XCTAssertEqual(point.y, 16.5, accuracy: 1e-9)
        let back = t.originalPoint(x: point.x, y: point.y)
        XCTAssertEqual(back.x, 12.5, accuracy: 1e-9)
        XCTAssertEqual(back.y, 33, accuracy: 1e-9)
    }

    func testStretchIgnoresAspect() throws {
        let image = RGBImage(width: 100, height: 10, color: .white)
        let stretched = try image.resized(width: 20, height: 40)
        XCTAssertEqual(stretched.width, 20)
        XCTAssertEqual(stretched.height, 40)
        XCTAssertEqual(stretched[19, 39, 0], 255, accuracy: 1e-3)
    }
}
